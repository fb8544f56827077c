"""The file formats of sproutsdb, one public module each, shared by the CLI, the server and
the tests: `rcttable` (RCT table files), `exchange` (the native export stream, .spdbx) and
`spr` (GLOP/SPOTS `.spr` nimber databases)."""
