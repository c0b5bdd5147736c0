from jitlint.frontends.cli import main

raise SystemExit(main())
