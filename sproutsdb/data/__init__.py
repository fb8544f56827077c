"""Package data: the S6 RCT table the project ships (found by sproutsdb.shipped)."""
