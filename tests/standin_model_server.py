"""A stand-in for ``python -m llama_cpp.server`` in tests: the loopback OpenAI server as a process.

Takes the options the app gives llama.cpp's server (``--port``, ``--model`` …, the others are
ignored) and answers every chat call with ``--reply``. ``--die-after S`` makes the process exit
S seconds after it starts listening (a crash); ``--ready-after S`` makes it wait before listening
(a model that loads slowly); ``--exit-at-start`` fails at once (a broken model file).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.openai_server import OpenAIServer, Reply


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--model_alias", "--alias", default="standin")  # llama-cpp-python, llama-server
    parser.add_argument("--reply", default="好")
    parser.add_argument("--die-after", type=float, default=0.0)
    parser.add_argument("--ready-after", type=float, default=0.0)
    parser.add_argument("--exit-at-start", action="store_true")
    args, _unknown = parser.parse_known_args()
    if args.exit_at_start:
        print("error: cannot load model", flush=True)
        return 3
    time.sleep(args.ready_after)
    server = OpenAIServer(models=[args.model_alias], port=args.port)
    server.default = Reply.text(args.reply)
    server.start()
    print(f"listening on {args.port} pid {os.getpid()}", flush=True)
    started = time.monotonic()
    while True:
        time.sleep(0.05)
        if args.die_after and time.monotonic() - started > args.die_after:
            os._exit(9)


if __name__ == "__main__":
    sys.exit(main())
