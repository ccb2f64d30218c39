"""print_pdf.py [-j JOBS] HTML PDF [HTML PDF ...]: prints each HTML page to
its PDF with WeasyPrint, as `weasyprint HTML PDF` does, in one process that
loads WeasyPrint once (about half a second a page saved) and then prints
JOBS pages at a time in forked workers (default 1), in the order given:
give the longest first.

WeasyPrint's warnings are shown on stderr as the command shows them
("WARNING: ..."), each line led by the PDF's name given as PREFIX/ (see
-p), and any warning fails its page: a stylesheet rule WeasyPrint ignores
is a handout that looks wrong. Every page is printed before the status is
decided, so that all the failures are named.

  -j JOBS    pages printed at a time
  -p PREFIX  a path prefix left out of the names in messages

Run it with the Python that runs the weasyprint command (docs/build.sh
reads its first line). Exit status: 0 every page printed without a
warning, 1 one failed or warned, 2 bad usage.
"""
import logging
import os
import sys


def usage(why):
    print(f"print_pdf.py: {why} (usage: print_pdf.py [-j JOBS] [-p PREFIX] HTML PDF ...)",
          file=sys.stderr)
    sys.exit(2)


def print_one(html, pdf, name):
    """Prints html to pdf in this process; returns 0, or 1 when WeasyPrint
    failed or warned."""
    from weasyprint import HTML, LOGGER
    seen = []

    class Keep(logging.Handler):
        def emit(self, record):
            seen.append(f"{record.levelname}: {record.getMessage()}")

    LOGGER.setLevel(logging.WARNING)
    LOGGER.addHandler(Keep())
    try:
        HTML(html).write_pdf(pdf)
    except Exception as e:  # what the command would print, then fail
        for line in seen:
            print(f"  {name}: {line}", file=sys.stderr)
        print(f"  {name}: {type(e).__name__}: {e}", file=sys.stderr)
        print(f"docs/build.sh: weasyprint failed on {name}", file=sys.stderr)
        return 1
    if seen:
        for line in seen:
            print(f"  {name}: {line}", file=sys.stderr)
        print(f"docs/build.sh: weasyprint warned while printing {name} (see above)",
              file=sys.stderr)
        return 1
    return 0


def main(argv):
    jobs, prefix = 1, ""
    while argv and argv[0].startswith("-"):
        if argv[0] in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        if len(argv) < 2 or argv[0] not in ("-j", "-p"):
            usage(f"unknown option '{argv[0]}'" if argv[0] not in ("-j", "-p")
                  else f"{argv[0]} needs a value")
        if argv[0] == "-j":
            if not argv[1].isdigit() or int(argv[1]) < 1:
                usage(f"-j needs a positive number, not '{argv[1]}'")
            jobs = int(argv[1])
        else:
            prefix = argv[1]
        argv = argv[2:]
    if not argv or len(argv) % 2:
        usage("give pairs of HTML and PDF files")
    pairs = list(zip(argv[0::2], argv[1::2]))
    for html, _ in pairs:
        if not os.path.isfile(html):
            usage(f"no file {html}")
    try:
        import weasyprint  # noqa: F401  (loaded once, before the workers fork)
    except ImportError:
        print(f"print_pdf.py: {sys.executable} has no weasyprint module: run this file "
              "with the Python that runs the weasyprint command", file=sys.stderr)
        return 1

    def name_of(pdf):
        return pdf[len(prefix):] if prefix and pdf.startswith(prefix) else pdf

    sys.stdout.flush()
    sys.stderr.flush()
    status, running, left = 0, {}, list(pairs)
    while left or running:
        while left and len(running) < jobs:
            html, pdf = left.pop(0)
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    code = print_one(html, pdf, name_of(pdf))
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
            running[pid] = pdf
        pid, wstatus = os.wait()
        pdf = running.pop(pid)
        if os.waitstatus_to_exitcode(wstatus) != 0:
            status = 1
            if os.WIFSIGNALED(wstatus):
                print(f"docs/build.sh: weasyprint failed on {name_of(pdf)} "
                      f"(signal {os.WTERMSIG(wstatus)})", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
