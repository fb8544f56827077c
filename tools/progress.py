"""Moved to `sproutsdb.progress` (the library reports progress too). This name stays only
for the commands other branches edit now (cmd_solve, cmd_engine, cmd_rct): remove it when
they import `sproutsdb.progress`."""

from sproutsdb.progress import counter_bar as counter_bar
from sproutsdb.progress import status_line as status_line
