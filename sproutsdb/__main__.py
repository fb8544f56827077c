"""Allow ``python -m sproutsdb`` as a synonym of the ``sproutsdb`` command."""

from sproutsdb.tools.cli import main

raise SystemExit(main())
