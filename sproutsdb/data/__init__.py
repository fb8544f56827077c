"""Package data: the S6 RCT table the project ships (found by sproutsdb.shipped), and the
results library: certificates and their manifest in results/, the literature in
literature.json (sproutsdb.ops.results)."""
