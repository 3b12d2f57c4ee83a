from bench.commands import main

raise SystemExit(main())
