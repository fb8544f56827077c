"""Moved to `sproutsdb.ops.shipped_rcts` (the misère check of the library reads it). This
name stays only for the commands other branches edit now (cmd_solve, cmd_rct, cmd_web):
remove it when they import `sproutsdb.ops.shipped_rcts`."""

from sproutsdb.ops.shipped_rcts import describe_source as describe_source
from sproutsdb.ops.shipped_rcts import say_on_stderr as say_on_stderr
from sproutsdb.ops.shipped_rcts import shipped_rct_table as shipped_rct_table
