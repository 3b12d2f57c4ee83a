"""Imported first in the forkserver (`executors.forkserver_context`), before it notes the
signal handlers its children start with: Ctrl-C reaches every process of the terminal's
group, and a worker still booting (unpickling its first task, before its pool's initializer
has run) would otherwise die of it with a traceback. The parent stops the workers itself."""

import signal

signal.signal(signal.SIGINT, signal.SIG_IGN)
