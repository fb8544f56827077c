"""Normal play: the couple searches of 'Nimbers are inevitable' (DFS and df-pn), their checker, and the rules-only nimber."""
