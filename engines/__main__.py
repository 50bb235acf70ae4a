from engines.cli import main

raise SystemExit(main())
