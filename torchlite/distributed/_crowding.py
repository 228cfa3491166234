"""Whether the machine's CPUs are oversubscribed right now, for the waits' choice between yielding and
sleeping (_work.wait_test): a sleeping rank leaves its CPU to the programs queued for it, which helps when
some are queued and only adds the sleep's timer slack (60-90 us here) when none are."""
import os


_LOADAVG = None  # a descriptor of /proc/loadavg, opened on the first reading and kept (one pread per
# reading, a few us); -1 where it cannot be opened
_CPUS = os.cpu_count() or 1


def _loadavg():
    global _LOADAVG
    if _LOADAVG is None:
        try:
            _LOADAVG = os.open("/proc/loadavg", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            _LOADAVG = -1
    return _LOADAVG


def procs_running(line):
    """The kernel's count of runnable tasks from a /proc/loadavg line (b"0.61 2.16 2.84 3/412 12345": 3),
    the reader included."""
    slash = line.index(b"/")
    return int(line[line.rindex(b" ", 0, slash) + 1:slash])


def crowded():
    """True when more tasks are runnable than the machine has CPUs; also where that cannot be read (not
    Linux), which keeps the sleeping policy measured on the loaded machine."""
    fd = _loadavg()
    if fd < 0:
        return True
    try:
        return procs_running(os.pread(fd, 128, 0)) > _CPUS
    except (OSError, ValueError):
        return True
