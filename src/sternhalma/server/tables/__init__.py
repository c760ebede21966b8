"""The tables of this process: ``Tables`` (service.py) composes the copies in memory
with the collaborators that act on them (commands, clocks, the computer's turns,
presence, following other processes)."""
