"""What the tests of `bovw-mpi` share (test_mpi_index.py, test_mpi_train.py, test_mpi_search.py): the
command line they are run with, the launcher, and bovw-mpi jobs run, started and watched under it.
The image set and the one-process helpers are test_retrieval.py's (imported as `base`).

Each test file is run as  test_mpi_X.py --bovw PATH/TO/bovw --bovw-mpi PATH/TO/bovw-mpi
                          --mpirun "mpirun -n 2 --oversubscribe --allow-run-as-root" --data tests/data
"""
import argparse
import os
import shlex
import subprocess
import sys
import unittest

import test_retrieval as base  # exits 77 (CTest: skipped) without numpy and python3-opencv

BOVW_MPI = None
MPIRUN = None     # the launcher and its options, for two ranks
TIMEOUT = 60      # a job whose ranks wait for each other forever fails here instead


def launcher(ranks=None):
    """The launcher's words, for `ranks` ranks if given (the count follows its -n or -np flag)."""
    words = list(MPIRUN)
    if ranks is not None:
        flag = next(i for i, a in enumerate(words) if a in ("-n", "-np", "--np", "-c"))
        words[flag + 1] = str(ranks)
    return words


def environment(extra=None):
    env = dict(os.environ)
    env.pop("BOVW_DEVICE", None)  # the device of the ranks is theirs to choose
    env.update(extra or {})
    return env


def run(*args, ranks=None, env=None):
    """bovw-mpi ARGS under the launcher (with `env`'s variables added to the environment); fails the
    calling test if the job does not end within TIMEOUT or draws a progress bar on a pipe."""
    command = launcher(ranks) + [BOVW_MPI] + [str(a) for a in args]
    try:
        result = subprocess.run(command, capture_output=True, text=True, env=environment(env), timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        raise AssertionError("%s did not end within %d s (ranks waiting for each other?)\n--- stderr:\n%s"
                             % (" ".join(command), TIMEOUT, e.stderr)) from None
    if "\r" in result.stderr:
        raise AssertionError("progress bar drawn on a pipe: " + base.describe(result))
    return result


def start(*args):
    """bovw-mpi ARGS under the launcher, started in the background (stdout and stderr piped)."""
    return subprocess.Popen(launcher() + [BOVW_MPI] + [str(a) for a in args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=environment())


def rank_processes(*words):
    """The pids of the bovw-mpi ranks (not the launcher, which names the program too) whose command
    line holds every one of `words`."""
    pids = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(os.path.join("/proc", entry, "cmdline"), "rb") as f:
                arguments = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if arguments[0] == BOVW_MPI and all(str(word) in arguments for word in words):
            pids.append(int(entry))
    return pids


def main(test_file):
    """Parses the shared command line and runs the calling file's unittest cases."""
    global BOVW_MPI, MPIRUN
    parser = argparse.ArgumentParser(description=test_file + ": end-to-end tests of bovw-mpi", add_help=False)
    parser.add_argument("--bovw", required=True, help="path of the bovw binary")
    parser.add_argument("--bovw-mpi", required=True, help="path of the bovw-mpi binary")
    parser.add_argument("--mpirun", required=True, help="the launcher with its options for two ranks, one string")
    parser.add_argument("--data", required=True, help="the tests/data folder")
    options, rest = parser.parse_known_args()
    base.BOVW, base.DATA = os.path.abspath(options.bovw), os.path.abspath(options.data)
    BOVW_MPI, MPIRUN = os.path.abspath(options.bovw_mpi), shlex.split(options.mpirun)
    for program in (base.BOVW, BOVW_MPI):
        if not os.access(program, os.X_OK):
            print("%s: %s is not an executable" % (test_file, program), file=sys.stderr)
            return 1
    if not MPIRUN:
        print("%s: --mpirun needs the launcher" % test_file, file=sys.stderr)
        return 1
    program = unittest.main(module="__main__", argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1
