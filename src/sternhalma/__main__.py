"""``python -m sternhalma`` runs the command line."""

from sternhalma.cli import main

main()
