"""`python -m ginrummy.cli`: the same command as the `ginrummy` console script."""

from . import main

main()
