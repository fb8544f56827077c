"""The ports of the solver: the Game protocol every game plugs into, and the ProofStore every store implements."""
