#!/usr/bin/env python3
"""How long a GTP engine thinks per move, along a recorded game (Linux: CPU time from /proc).

usage: gtp-move-times.py GAME.sgf COLOUR ENGINE [ARGS...]
   e.g. gtp-move-times.py arena-s19-40k/game-0000.sgf B target/release/ets gtp --playouts 40000

Replays the game through the engine; at every move of COLOUR asks `genmove`, records the CPU time
(utime + stime of the engine's process) and the wall time of that command, takes the answer back
(`undo`) and plays the recorded move. Prints one line per genmove and a summary (max, median, mean,
90th percentile of CPU seconds). Exits with a message if the engine answers a command with an error."""
import re, subprocess, sys, time, os, statistics

def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        raise SystemExit(2)
    sgf, colour, cmd = sys.argv[1], sys.argv[2].upper(), sys.argv[3:]
    text = open(sgf).read()
    size = int(re.search(r"SZ\[(\d+)\]", text).group(1))
    komi = re.search(r"KM\[([^\]]*)\]", text).group(1)
    moves = re.findall(r";([BW])\[([a-s]{0,2})\]", text)
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    def gtp(c):
        p.stdin.write(c + "\n"); p.stdin.flush()
        out = []
        while True:
            l = p.stdout.readline()
            if l.strip() == "" and out:
                break
            if l.strip() != "":
                out.append(l.strip())
        if not out[0].startswith("="):
            raise SystemExit(f"{c}: {out}")
        return out[0][1:].strip()
    gtp(f"boardsize {size}"); gtp("clear_board"); gtp(f"komi {komi}")
    letters = "ABCDEFGHJKLMNOPQRST"
    times = []
    for i, (c, v) in enumerate(moves):
        vert = "pass" if v == "" or (v == "tt" and size <= 19) else f"{letters[ord(v[0]) - 97]}{size - (ord(v[1]) - 97)}"
        if c == colour:
            c0, w0 = cpu(p.pid), time.monotonic()
            g = gtp(f"genmove {c}")
            dc, dw = cpu(p.pid) - c0, time.monotonic() - w0
            times.append(dc)
            print(f"move {i+1:3d} {c} genmove {g:>6} cpu {dc:6.2f} s wall {dw:6.2f} s", flush=True)
            if g.lower() != "resign":
                gtp("undo")
        gtp(f"play {c} {vert}")
    gtp("quit")
    s = sorted(times)
    print(f"{len(s)} genmoves: max {s[-1]:.2f} s CPU, median {statistics.median(s):.2f}, mean {statistics.mean(s):.2f}, "
          f"90th percentile {s[int(0.9*len(s))]:.2f}")

main()
