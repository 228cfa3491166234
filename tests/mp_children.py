"""Functions the processes of tests/test_multiprocessing.py run: a module of their own (importing only
torchlite) so that a spawned child imports it quickly by name."""
import os
import signal
import sys

import torchlite


def write_and_send_back(inbox, outbox, done):
    """Adds 1 to the tensor received, sends back a view of its second row, and stays alive until the parent
    has received it (the parent fetches the view's file descriptor from this process)."""
    t = inbox.get(timeout=30)
    t.add_(1)
    outbox.put(t[1])
    done.wait(30)


def write_through_pipe(conn):
    t = conn.recv()
    t.mul_(-1)
    conn.send("written")
    conn.recv()  # the parent's go-ahead to exit
    conn.close()


def fill_slot(i, shared):
    shared[i] = i + 10


def raise_in_one(i):
    if i == 1:
        raise ValueError(f"boom in {i}")


def exit_with_code(i, code):
    sys.exit(code)


def kill_self(i):
    os.kill(os.getpid(), signal.SIGKILL)


def hogwild_steps(rank, model, steps, barrier):
    """Plain SGD on a shared linear model toward y = 2x - 1, without locks (Hogwild)."""
    torchlite.manual_seed(rank)
    optimizer = torchlite.optim.SGD(model.parameters(), lr=0.1)
    barrier.wait(30)
    for _ in range(steps):
        x = torchlite.randn(16, 1)
        loss = ((model(x) - (2 * x - 1)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def report_values(tensors, outbox):
    outbox.put([t.tolist() for t in tensors])


def report_parent_death_signal(i, outbox):
    import ctypes
    sig = ctypes.c_int()
    ctypes.CDLL(None).prctl(2, ctypes.byref(sig))  # PR_GET_PDEATHSIG
    outbox.put(sig.value)
