from trickledger import main

raise SystemExit(main())
