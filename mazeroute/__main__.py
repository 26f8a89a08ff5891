"""``python -m mazeroute`` and the ``mazeroute`` command (:func:`run`)."""

import signal
import sys


def run() -> int:
    """The command line, with the modules it needs loaded inside its own guard: Ctrl-C or
    SIGTERM while they load, or in the moments before and after the command's own guard
    (:func:`mazeroute.cli.main`), gives one line and status 130 or 143, as within it."""
    got = []

    def stop(signum, frame):
        got.append(signum)
        raise KeyboardInterrupt()

    old = signal.signal(signal.SIGTERM, stop)
    try:
        from .cli import main
        return main()
    except KeyboardInterrupt:
        term = signal.SIGTERM in got
        print(f"mazeroute: error: {'terminated (SIGTERM)' if term else 'interrupted'}",
              file=sys.stderr)
        return 143 if term else 130
    finally:
        signal.signal(signal.SIGTERM, old)


if __name__ == "__main__":
    sys.exit(run())
