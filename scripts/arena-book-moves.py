#!/usr/bin/env python3
"""Which opening book decided which of ets's moves in an arena: replays the opening (first 20 moves) of each game of
ARENA_DIR through `ets gtp` with the arena's seed (1 + 2 game + side) and the engine's flags plus `learn`, on a
throw-away copy of STORE per game; checks that genmove reproduces every ets move; sums the book moves per source from
`ets-learn`'s answer. usage: arena-book-moves.py ETS ARENA_DIR STORE "FLAGS" (9x9, komi 7, 5,000 playouts)"""
import re, sys, glob, subprocess, shutil, os, collections
B, D, S, FLAGS = sys.argv[1:5]
tot = collections.Counter(); games = 0; mism = 0
for f in sorted(glob.glob(D + '/game-*.sgf')):
    g = int(re.search(r'game-(\d+)', f).group(1))
    t = open(f).read()
    pb = re.search(r'PB\[([^\]]*)\]', t).group(1)
    col = 'B' if pb.startswith('ets') else 'W'
    k = 0 if col == 'B' else 1
    mv = re.findall(r';([BW])\[([a-z]*)\]', t)[:20]
    os.makedirs('/tmp/arena-book-moves', exist_ok=True); st = f'/tmp/arena-book-moves/s{g}.sqlite'; shutil.copy(S, st)
    p = subprocess.Popen([B, 'gtp', '--playouts', '5000', '--store', st] + FLAGS.split() , stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    def cmd(c):
        p.stdin.write(c + '\n'); p.stdin.flush(); out = []
        while True:
            l = p.stdout.readline()
            if l == '' : break
            if l.strip() == '' and out: break
            out.append(l.rstrip('\n'))
        return '\n'.join(out)
    for c in ['boardsize 9', 'clear_board', 'komi 7', f'set_random_seed {1 + 2*g + k}']: cmd(c)
    letters = 'abcdefghjklmnopqrst'
    for (c, xy) in mv:
        v = 'pass' if xy == '' else letters[ord(xy[0]) - 97].upper() + str(9 - (ord(xy[1]) - 97))
        if c == col:
            a = cmd('genmove ' + c).lstrip('= ').strip()
            if a.lower() != v.lower(): mism += 1; print(f'{f}: genmove {a}, recorded {v}'); break
        else:
            cmd(f'play {c} {v}')
    ans = cmd('ets-learn 0')
    cmd('quit'); p.wait(); os.remove(st)
    m = re.search(r'book moves this game: (.*)', ans)
    games += 1
    if m and m.group(1) != 'none':
        for part in m.group(1).split(', '):
            n, c = part.rsplit(' ', 1); tot[n] += int(c)
print(f'{D}: {games} games replayed, {mism} not reproduced; book moves by source: {dict(tot)}')
