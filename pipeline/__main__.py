"""python -m pipeline ... (and the `wordle-pipeline` command): see pipeline.app.cli and pipeline.app.commands.

Ctrl-C, SIGTERM and SIGHUP, even while the modules are still importing, end the run with one line and exit
status 130, 143 or 129 (pipeline.processes.signals)."""

import sys

from pipeline.processes import signals

signals.install()


def main(argv: list[str]) -> int:
    """The command line, with an interrupt reported as one line (its exit status: 130 SIGINT, 143 SIGTERM, 129
    SIGHUP)."""
    try:
        from pipeline.app.commands import main as commands_main

        return commands_main(argv)
    except KeyboardInterrupt as err:
        return signals.report(err)
    except Exception as err:  # a library turned the interrupt into another error while it unwound
        if signals.received() is None:
            raise
        return signals.report(err)


def run() -> None:
    """Console entry point (`wordle-pipeline ...`), the same as `python -m pipeline ...`."""
    sys.exit(main(sys.argv[1:]))


if __name__ == "__main__":
    run()
