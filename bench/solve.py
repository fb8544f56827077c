"""Solve benchmark: 0*n on a fresh LMDB store, then again on the warm store.

Run on demand (not part of the test suite):
    .venv/bin/python bench/solve.py                 # n = 10..20, 10 minutes per n at most
    .venv/bin/python bench/solve.py --max-n 14 --limit 300 --jobs 2
    .venv/bin/python bench/solve.py --min-n 8 --baseline bench/baselines/solve-canon-v1.json
Each n runs in a fresh process (so peak RSS is that run's) on a fresh durable store: outcome,
wall and CPU seconds, df-pn visits (nodes), losing couples stored, peak RSS, and the ratio to
SPOTS's seconds on one core of this machine kind (docs/architecture.md §9); then the same
question on the now warm store, the in-process baseline of the warm/fresh ratio. --save keeps the figures as
JSON; --baseline prints the node and time ratios to a saved run. `sproutsdb check --prune
--cycles` (bench/check.py) gives pruned proof sizes.

Figures of 2026-11-24, evening (C core: moves swapping interchangeable spots made once, memo
keyed by a tidied land; --jobs 1; 2-core VM at load 3-5 with other sessions, so wall seconds
are 1.1-2.5x the CPU seconds: compare CPU with SPOTS's one-core seconds):

      n out  wall s  cpu s   visits stored  RSS MB  SPOTS s (iterations)  cpu/SPOTS  before
     12   L    11.3    6.8   25 451  1 057     101  21-26  (45 140)       0.26-0.32    13.1
     13   L    24.7   13.7   43 490  1 689     158  25     (41 450)       0.55         28.0
     14   L    85.5   40.6  150 064  7 724     322  136    (250 087)      0.30         79.3
     15   W   166.5  102.3  212 922  6 562     416  298    (315 576)      0.34        280.8
     16   W    14.7   12.3   39 246  1 401     148  38     (58 773)       0.32         43.7
     17   W     7.2    6.9   24 297    826     104  15     (24 680)       0.46         59.3
     18   L   299.3  137.0  273 244  8 649     452  437    (486 913)      0.31        889.2
     19   L   125.8   66.3  171 892  6 865     393  280    (380 805)      0.24      1 177.4
     20   L   263.5  108.1  241 996  9 199     433  466    (448 064)      0.23      > 1 500 wall
     21   W 1 226.9 1 014.1       -  44 455     751  not solved in 600 s       > 1.7      -
(0*21 with `sproutsdb solve --spots 21 --outcome-only --store DIR`, not the bench, whose
1 200 s wall cap stopped it at about 9 CPU minutes: 16.9 CPU minutes, so the issue's goal
of 10 minutes is missed by 1.7x; `check --root 0*21` then verified its 10 147 facts clean
in 34.9 CPU s.)
("before": CPU s of the morning's run, same search and visits: the C core's children of a land
were 2.5x (lands of 0*12) to 14x (lands of 0*17) slower.)

Peak RSS (the "RSS MB" column, MiB) after the memory work of 2026-11-25 (issue 32), same
visits and stored facts; `sproutsdb solve 0*n --outcome-only`, /usr/bin/time, before -> after:
0*14 293 -> 83, 0*16 148 -> 72, 0*18 422 -> 106, 0*20 401 -> 99 (CPU 54.5 -> 59.1 s paired).
Most of it was the core's memo of canonical strings, cleared only at 10⁶ entries (~300 MB);
it is now cleared past 2¹⁵ (sprouts.game.CORE_MEMO_KEPT: 2¹⁷ gives 0*20 126 MB, 4 % more CPU
than before instead of 8 %).

The compact memo of 2026-11-25, afternoon (core_memo.c: keys packed as bytes, 8-byte hash
slots, two generations instead of one table cleared whole, ~150 B an entry with its str;
smaller children caches; fewer young garbage collections). Paired runs, before (main at
cbf7a55, memo 2¹⁵ cleared whole) then after (memo 2¹⁷), one n at a time, `sproutsdb solve
0*n --outcome-only` on a fresh store, /usr/bin/time user CPU s and max RSS MB, 2-core VM at
load 3-8 (user seconds are ~1.2x those of an idle machine), same outcomes and stored facts:

      n   cpu s before -> after   RSS MB before -> after   cpu/SPOTS after
     12        5.02 -> 4.60           68.9 -> 68.7            0.18-0.22
     13        9.65 -> 8.95           76.1 -> 72.2            0.36
     14       26.20 -> 25.94          85.1 -> 84.2            0.19
     15       56.68 -> 55.25          96.3 -> 98.8            0.19
     16        8.40 -> 7.77           74.3 -> 74.8            0.20
     17        4.73 -> 4.78           71.8 -> 69.6            0.32
     18       79.77 -> 76.09         107.5 -> 104.3           0.17
     19       44.54 -> 38.34          91.3 -> 91.1            0.14
     20       57.24 -> 57.14         100.9 -> 101.9           0.12
With the memo at 2¹⁶ (the default, sprouts.game.CORE_MEMO_KEPT): 0*18 78.3 s, 95.3 MB (run
alone); 0*20 paired again, 61.6 -> 60.4 s, 103.1 -> 92.8 MB. 0*21 was not measured (the
loaded machine gave it a sixth of a core).

Final figures of 2026-11-25, 16:45-17:34 (memo 2¹⁶, the default), `sproutsdb solve 0*n
--outcome-only` on a fresh store, one n at a time, load ~1-3 (0*21 alone on an idle machine),
user CPU s / max RSS MB / cpu/SPOTS: 12 4.04 / 61.9 / 0.16-0.19; 13 8.01 / 65.6 / 0.32;
14 23.84 / 77.2 / 0.18; 15 60.30 / 88.8 / 0.20; 16 7.07 / 65.9 / 0.19; 17 3.84 / 63.4 / 0.26;
18 80.42 / 95.4 / 0.18; 19 39.55 / 83.8 / 0.14; 20 60.89 / 92.8 / 0.13; 21 631.6 / 228.5
(1 606 053 visits, 44 455 facts; the goal of 600 s is missed by 5 %).

df-pn's widening factor ε (solver/search/dfpn.py), swept 2026-11-27 on an in-memory store
(outcome of 0*n, visits at 12 / 13 / 14 / 15 / 16 / 17): ε = 0 29,988 / 49,851 / 367,026 /
295,456 / 56,800 / 30,573; 0.25 (the default) 25,451 / 43,490 / 150,064 / 212,922 /
39,246 / 24,297; 0.5 27,124 / 68,619 / 294,411 / 222,678 / 41,076 / 28,121; 1.0 47,179 at
12 (stopped there). The default is the best at every n: not a lever for 0*21.
A child's initial δ, 1 + lives // 4 (solver/normal/dfpn.py), with // 3 instead (tried, the
same day and store; visits at 12..21): 30,244 / 47,398 / 101,431 / 214,108 / 38,148 /
24,974 / 237,985 / 154,181 / 240,639 / 1,470,097 (0*21 W in 1,158 CPU s, 211 MB, on a
machine where // 4 took 1,349 s and 1,606,053 visits): 8 % fewer visits summed, but 19 % and
9 % more at 12 and 13, already the weakest ratios to SPOTS; // 6: 0*14 331,448. Not kept: a
move of the path's luck, like ε, not a better estimate.
After the misère memory merge of 2026-11-27 (df-pn's shared (φ, δ) tuples, hash keys for
misère only), normal play's 0*14: 150,064 visits, 49.41 against 48.85 user CPU s in a
paired run with the code before it (+1 %).
On the same day, on this machine (1.75x slower than that of the figures above: 0*14 41.8
user CPU s idle, against 23.84), the ratios to DESIGN §7's SPOTS seconds would read 1.75x
higher (0*13 about 0.56): SPOTS was not re-measured here, so no new ratio is claimed.

The core's memo for large roots (2026-11-27, the same slower machine; sprouts.game
LARGE_LAND_LIVES): once a land of 63 lives or more is asked (0*21 and up), the memo keeps
2²⁰ canonical strings instead of 2¹⁶ for the rest of the process. In-process outcome on an
in-memory store (`Solving(MemoryProofStore(), settings=SolveSettings(outcome_only=True))`,
sprouts.game.CORE_MEMO_KEPT set), the two of a pair at once on the 2 cores beside a third
process (load ~3), user CPU s and peak RSS:
  0*21 (W, 1,640,936 visits both): 2¹⁶ 1,271.4 s, 185 MB; 2²⁰ 1,182.3 s, 354 MB (-7.0 %)
  0*18 (L, 273,244 visits): 2¹⁶ / 2¹⁸ / 2²⁰ 170.9 / 156.4 / 145.7 s, 84 / 115 / 222 MB
  0*21 again with 2²⁰, paired with the table capacity at 2²¹ instead of 2¹⁹ (load 2):
  2¹⁹ (one clear of the nimber table) 1,142.3 s, 355 MB, 1,640,936 visits; 2²¹ (never
  cleared) 1,343.6 s, 405 MB, 1,877,103 visits: a larger table moves the path, here to a
  longer one; not a lever. (0*21's 1,640,936 visits, against 1,606,053 in the CLI run of
  2026-11-25 on LMDB, were not traced to a change; one candidate: df-pn's table, full at
  0*21 with 2¹⁹ entries, drops its older half since 2026-11-27 instead of emptying.)
0*12..0*20 keep 2¹⁶ (their lands have at most 60 lives) and the ≤ 100 MB of the figures
above. The children LRU at 16,384 lands instead of 2,048 beside the large memo (tried):
0*18 144.1 against 148.8 s (-3 %), 254 against 223 MB; not kept. Against the goal of 600
CPU s: through the CLI at this commit, `sproutsdb solve 0*21 --outcome-only --store NEW`
beside a misère run (load 2): W, 1,640,936 visits, 46,507 facts, 1,284.5 user CPU s, 1,333 s
wall, 373 MiB peak; 0.78 ms a visit against 0.84 for the 1,349 s of 1,606,053 visits here
before. So on this machine the goal is missed by 2.1x. -7 % of the 631.6 s of 2026-11-25
would be ~587 s, but this machine's 0*21 takes 2.1x that machine's (0*14: 1.75x), so that
is a guess, not a measurement: 0*21 was not run on the faster machine again.
The garbage collector paused during a search (2026-11-27, solver/search/driver.py's
QuietCollector, instead of a young threshold of 50,000): 0*21's first 7 minutes under py-spy
had 4.6 % of their samples in gc_collect_main. Paired, both at once on the 2 cores beside a
misère run, in-process on an in-memory store, before -> after: 0*18 L, 273,244 visits both,
156.3 -> 150.1 CPU s (-4.0 %), 86 -> 84 MB peak. (The same profile: 55 % of 0*21's CPU in the C
core's children of lands, 31 % of it in canonical_land's boundary search.) Then through the
CLI, `sproutsdb solve 0*21 --outcome-only --store NEW --json` beside a misère run (load 2):
W, 1,640,936 visits, 46,507 facts (as before), 1,179.2 user CPU s (before: 1,284.5), 1,191 s
wall, 373 MiB peak: 0.72 ms a visit. The goal of 600 CPU s is missed by 1.97x on this machine.
A cheaper canonical search (2026-11-27, evening; the C core learns once per path choice which
automorphisms fix it, and reads each region's boundaries by form from the colouring: the same
canonical strings, -17.7 % instructions for the children of 400 lands of misère 0*20; see
bench/misere.py). Paired, both at once beside a misère run, in-process on an in-memory store:
0*18 L, 273,244 visits and 8,649 facts both, 152.9 -> 142.1 CPU s (-7.1 %), 86 MB both. Then
`sproutsdb solve 0*21 --outcome-only --store NEW --json` under /usr/bin/time, beside the misère
0*20 run and paired measurements (load 2-4; not paired with the old core): W, 1,640,936
visits, 46,507 facts (as before), 921.9 user CPU s (1,179.2 the last time), 1,409 s wall,
374 MiB peak: 0.56 ms a visit. The goal of 600 CPU s is missed by 1.54x on this machine.
From the results library (2026-11-28; `solve --seed-results`, which stores the certificates
of 0*0..0*20 first, each re-derived from the rules or found so by its cached mark): `sproutsdb
solve 0*21 --outcome-only --seed-results --store NEW --json --quiet` under /usr/bin/time,
beside a misère run on both cores (load 3): W, 746,243 visits (1,640,936 from an empty
store), 19,798 facts stored, 513.5 user CPU s for the whole command, seeding included, 311
MB peak. Under the 600 s, but it is not the figure of the table above: that one starts from
an empty store, as SPOTS's figures do, and stays at 921.9 s (1.54x the goal).
Children made only up to a known losing one (2026-11-28; solver/normal/dfpn.py through the C
core's land_children_until). A py-spy profile of 0*21's first 7 minutes (CLI, beside a
misère run) had 66 % of the CPU in the core's children of lands. Over 0*21's first 150,000
visits, 41 % of the expansions that made a land's children then found among them a child
of nimber n, and so a won couple, half-way down the list (weighted by children). Those
children are now offered one by one as they are made, and the pass stops at the first
such child; the partial list is not memoised. Over the same visits: 45,221 stopped calls
and 62,521 whole ones, against 103,045 whole ones before. Paired, both at once on the 2
cores (the misère run stopped with SIGSTOP), in-process on an in-memory store, before ->
after: 0*21 W, 1,640,936 visits and 46,507 facts both, 1,021.2 -> 925.6 CPU s (-9.4 %),
347 MB both. 0*14, one after the other on the idle machine: 150,064 visits both, 39.0 ->
36.2 s. Through the CLI, `sproutsdb solve 0*21 --outcome-only --store NEW --json
--quiet` beside a misère run (load 2): W, the same visits and facts, 965.2 user CPU s, 16:09
wall, 385 MB peak. That is not below the 921.9 s above: that figure came from another
machine of this kind on another day, and this pair shows how far apart two such runs can
be. The goal of 600 CPU s is missed by 1.5-1.6x.
Tried the same day, not kept: the children LRU at 2¹⁷ lands instead of 2,048 for 0*21. It
made 21 % fewer core calls over 300,000 visits, but CPU s were 165.3 / 159.8 against 166.0 /
150.1 (idle, one after the other) and the peak RSS was 561 MB against 232 MB. The calls it
saved are the cheap ones.
The store read whole (2026-11-28, solver/normal/solver.py READ_ALL_LIMIT; misère has done
so since 2026-11-26): first by a lone search, then by every --jobs process too, each reading
afterwards only the keys the others announce. In the same profile, the store reads of each
expansion's new lands were 6.5 % of the CPU, and on a fresh store they find nothing that
is not already in the table. Paired through the CLI, both at once on the 2 cores (the misère
run stopped with SIGSTOP; before = the commit with the children pass above, run from a git
worktree), `sproutsdb solve 0*21 --outcome-only --store NEW --json --quiet` under
/usr/bin/time, before -> after: W, 1,640,936 visits and 46,507 facts both, 884.1 -> 817.2
user CPU s (-7.6 %), 14:47 -> 13:41 wall, 381 MB both. **0*21 is now 817.2 CPU s.** The
goal of 600 s is missed by 1.36x on this machine (0*14: 36.2 s here).
With both, the same command beside the misère run (load 2), one run each: 0*18 L, 273,244
visits, 8,649 facts, 117.7 user CPU s, 87 MB peak; 0*20 L, 241,996 visits, 9,199 facts,
81.4 s, 85 MB. The visits and facts are those of the table above, and both peaks stay under
100 MB.

2026-11-29, a new machine of this kind (0*14 34.1 s idle, 44.2 s beside the misère run):
`sproutsdb solve 0*21 --outcome-only --store NEW --json --quiet` beside the misère run, under
perf and py-spy for 160 s of it (so not a figure for the table): W, 1,640,936 visits, 46,507
facts, 928 s wall. Its profile is as before, and flat: 69 % in the C core's children of
lands (encode_land 36 %, tidy_land 12 %, normalize 7 %), no C function above 5 % of its own.
Over every 40th land of 0*21's first 300,000 core calls (7,500 lands, memo at 2²⁰, as 0*21
has it), valgrind's instruction count, which no other load moves: the canonical search
compared the whole partial encoding with the best one at every placed boundary
(quadratic in its length); it now compares only what a node added beyond the prefix known
equal: 30.34 -> 29.04 G instructions (-4.3 %), the same children for all 12,500 lands
sampled (sha256 of the lists). Then whether a region touches a named uppercase letter,
asked for every open region at every node of that search, is a count kept as letters are
named instead of a walk over the region's boundaries: 29.04 -> 28.64 G (-1.4 %; -5.6 % for
both), the same children. 0*14 in-process with the first change alone, paired, both at
once: 41.8 / 46.8 / 36.8 / 39.7 -> 41.1 / 41.0 / 38.0 / 37.2 CPU s (-4.7 % summed, one pair
reversed: the noise of this VM). Both changes at 0*21, paired through the CLI as on
2026-11-28 (both at once on the 2 cores, the misère run stopped with SIGSTOP, the version
before from a git worktree),
`sproutsdb solve 0*21 --outcome-only --store NEW --json --quiet` under /usr/bin/time: W,
1,640,936 visits and 46,507 facts both, 1,094.7 -> 1,058.5 user CPU s (-3.3 %), 378 -> 384
MB. This machine ran that pair 1.3x slower than the machine of 2026-11-28 ran its own
(884.1 -> 817.2), though its lone 0*14 is faster (33-34 s against 36.2): two 0*21 solves at
once slow each other more than two 0*14 do. So 0*21 is ~3 % under the 817.2 s of the table
above, not a new absolute figure; the ~1.3x still between it and the goal of 600 s is not
in reach of such steps.

2026-11-29 (twenty-sixth session): what the C core's canonical searches are. A scratch
build of the core counted, in-process on a memory store, every canonical search (a memo
miss) and whether its land had been met before, under the same memo key (dropped by the
memo's two generations) or under another one (CPU seconds of the searches, measured beside
other runs):
      n  memo   searches  distinct strings   same key dropped   other key    of the solve
     14  2^16    931,699           492,007            308,139     131,553      37 s
     20  2^16  2,450,179         1,293,360            876,609     280,210     100 s
     21  2^20 18,364,301        10,502,141          5,492,499   2,369,661     934 s
At 0*21 the searches were 503.6 s of the 934 s: 315.9 s for strings met for the first time,
131.0 s (14 %) for keys the memo had dropped, 56.8 s (6 %) for lands met under another key.
Those were mostly a region in its other view: the canonical search takes either view of
every region, but the memo's key wrote a region as it came, and where each of its
boundaries reads the same least codes backwards only the letters' names told the views
apart. The key now writes such a region both ways and keeps the lesser (core_land.c,
write_region). Same counts after: 0*14 861,180 searches (other key 77,039), 0*21
16,950,911 (-7.7 %; other key 1,249,870, same key dropped 5,198,900). cachegrind,
in-process: 0*12 28.969 -> 27.798 G instructions (-4.0 %), 25,451 visits both. The
children of 17,903 lands (12,500 from normal solves, 5,403 from misère 0*14) hash the same
before and after. At ~27 us a search, 0*21's 1.41 M fewer searches are ~40 s of its CPU
(~4 %, estimated; not measured through the CLI, where this VM's spread is larger). What
is left under another key needs a real canonical choice (equal regions whose order names
the letters of later ones, a region whose two views read different codes), and most of
0*21's searches are strings met for the first time.

2026-11-29 (twenty-seventh session), the same machine: `sproutsdb solve 0*21 --outcome-only
--store NEW --json --quiet` at e50469f, under /usr/bin/time beside the misère 0*21 run (as
the 817.2 s of 2026-11-28 was measured): W, 1,640,936 visits, 46,507 facts, **808.9 user
CPU s**, 13:31 wall, 376 MB peak. The goal of 600 s is missed by 1.35x. (-1.0 % against
817.2, not the ~4 % estimated above: the spread of this VM between runs is of that size.)
Tried, not kept: the memo for large roots at 2²¹ canonical strings instead of 2²⁰ (the
largest share of dropped keys above). Paired through the CLI, both at once on the 2 cores
(the misère run stopped with SIGSTOP), memo 2²⁰ -> 2²¹: the same visits and facts, 955.7
-> 945.4 user CPU s (-1.1 %), 381 -> 539 MB peak: 158 MB for a gain inside this VM's
spread between runs.
Further (issue 32), the same day: `sproutsdb solve 0*N --outcome-only --seed-results --jobs 2
--store NEW --json` under /usr/bin/time (CPU s of both processes, seeding included), then
`python bench/build_results.py --from DIR --normal N --misere '' --solve-flags
'--seed-results --jobs 2'` (pruned with 4 cycles, exported, checked alone in a fresh store):
      n  out  wall     CPU s   main visits  stored  peak MB  certificate (GLOP 2010)  prune CPU s
     27   W   20:46   2,480.8    1,825,619   43,485      384  17,235 (59,117)           587.2
     34   W    0:48      62.6       34,719      492      159   7,124 (21,107)           179.0
     35   W    0:14      18.0        7,916      144       84   6,155 (18,812)           129.6
     40   W    0:42      80.9       34,421      656      182  11,468 (45,782)           369.9
0*27 ran alone on the 2 cores; 0*34 and 0*35 beside the prune of 0*27 or a solve. 0*33 (W
in DMNSS2023; not among LV2012's) was stopped undecided after 55 minutes: 2,649,415 main
visits, 43,640 stored facts, 5,188.6 CPU s, 422 MB peak (its store resumes); 0*41 (W) after 5
minutes: 337,566 main visits, 5,276 stored, 595.9 CPU s (stopped; 0*40 came later). Then `sproutsdb
results --check --play normal --jobs 2`, every certificate re-derived now (before 0*40): 32
clean, 77,729 facts, 2:55 wall, 346.7 CPU s, 396 MB peak.
2026-11-29 (twenty-eighth session), the same machine and commands:
     46   W    3:58     473.2      318,950    7,424      294  16,081 (not in the table)   622.6
0*46 could not be asked before this session: the moves of its region of 46 spots stopped
at "2**45 ways to split; too many", although the C core makes one split per way to share
interchangeable spots (46 here); the limit is now on those (solver/sprouts/moves.py).
Its winning move is to 0*24.AB|0*21.AB (L), a split near the middle, like those of 0*34
(0*18.AB|0*15.AB), 0*35 (0*17.AB|0*17.AB) and 0*40 (0*21.AB|0*18.AB); 0*27's is to
0*25.1a1a. A stopped normal solve now lists its root's options settled (`--json`'s
"root_options"), which says what is left of the runs not decided:
  0*33: 17 of 18 options proven winning; only 0*31.1a1a is open, and it must be the losing
        one: what is left is a proof of a land of 0*32's size (GLOP's proofs of 0*30..0*32:
        58,204-58,365 couples). Stopped at 5,189 CPU s, as above.
  0*39: 15 of 21 proven winning after three runs, 34 minutes of search in all; open:
        0*38.AB|AB, 0*37.AB|0.AB, 0*36.AB|0*2.AB, 0*35.AB|0*3.AB, 0*34.AB|0*4.AB and
        0*37.1a1a; every split near the middle (0*33.AB|0*5.AB .. 0*19.AB|0*19.AB) wins.
  0*53: 1 of 28 after 8 minutes (635,245 main visits, 956.5 CPU s, 347 MB), stopped.
  0*47 (W; GLOP 2010: 54,542): 4 of 25 after one fresh run of 40:02 wall (2,245,310 main
        visits, 40,737 stored, 3,232 CPU s, 436 MB), stopped.

2026-12-01 (twenty-ninth session), a new machine of this kind, idle (nothing else ran), at
1a43614: `bench/solve.py --min-n 12 --max-n 21 --limit 1500` (fresh LMDB store each; CPU s
user + system; SPOTS's seconds are DESIGN §7's, not measured again here):

      n out   wall s   cpu s     visits  stored  RSS MB  SPOTS s   cpu/SPOTS
     12   L      3.7     3.7     25,451   1,057      56    21-26   0.14-0.18
     13   L      7.7     7.7     43,490   1,689      60       25   0.31
     14   L     22.4    22.4    150,064   7,724      69      136   0.16
     15   W     73.1    57.0    212,922   6,562      77      298   0.19
     16   W     11.7     7.8     39,246   1,401      59       38   0.20
     17   W      4.5     4.1     24,297     826      57       15   0.27
     18   L     76.5    76.4    273,244   8,649      84      437   0.17
     19   L     37.9    37.9    171,892   6,865      74      280   0.14
     20   L     56.5    56.5    241,996   9,199      80      466   0.12
     21   W    544.1   543.8  1,640,936  46,507     359   not solved in 600 s
(0*15's wall is above its CPU where a test file ran on the other core; nothing else did.)
The visits and facts are those of every run since 2026-11-27. Through the CLI, alone:
`sproutsdb solve 0*21 --outcome-only --store NEW --json --quiet` under /usr/bin/time: W,
1,640,936 visits, 46,507 facts, **545.7 user CPU s** (0.5 s system), 546.5 s wall, 373 MiB
peak: the goal of 600 CPU s is met on this machine, by 9 %. This machine is one of the
faster ones of the kind: 0*14 here takes 22.4 s, against 23.8 s on that of 2026-11-25
(0*21: 631.6 s then) and 33-34 s on that of 2026-11-29 (0*21: 808.9 s, beside a misère
run), so on the slowest machine seen the same code would take ~800 s, as measured there.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sproutsdb.ops.solve import SolveSettings, solve
from sproutsdb.ops.stores import open_proof_store
from sproutsdb.solver.normal.solver import SEARCHES, Progress
from sproutsdb.solver.sprouts import game as sprouts_game
from sproutsdb.solver.sprouts.canon import CANON_VERSION

PAPER_PRUNED = {11: 140, 12: 475}
# SPOTS on one core of this machine kind, outcome of 0*n, seconds and df-pn iterations
# (docs/architecture.md §9); 21 was not solved within 600 s.
SPOTS_SECONDS = {
    12: (21, 26),
    13: (25, 25),
    14: (136, 136),
    15: (298, 298),
    16: (38, 38),
    17: (15, 15),
    18: (437, 437),
    19: (280, 280),
    20: (466, 466),
}
SPOTS_ITERATIONS = {
    12: 45_140,
    13: 41_450,
    14: 250_087,
    15: 315_576,
    16: 58_773,
    17: 24_680,
    18: 486_913,
    19: 380_805,
    20: 448_064,
}


class OutOfTime(Exception):
    """Raised from the progress callback when a run exceeds its limit."""


def run(
    store_dir: Path, key: str, limit: float, search: str = "dfpn", jobs: int = 1
) -> dict[str, object]:
    """One solve of `key` on the store at `store_dir`: outcome, wall and CPU seconds, nodes,
    facts stored; raises OutOfTime past the limit. With jobs > 1, through the CLI."""
    if jobs > 1:
        return run_cli(store_dir, key, limit, search, jobs)
    started, cpu = time.perf_counter(), time.process_time()

    def watchdog(progress: Progress) -> None:
        if time.perf_counter() - started > limit:
            raise OutOfTime

    settings = SolveSettings(
        outcome_only=True, search=search, progress=watchdog, progress_interval=1.0
    )
    store = open_proof_store(store_dir)  # the store `sproutsdb solve --store DIR` opens
    try:
        report = solve(key, store, settings=settings)
    finally:
        store.close()
    outcome, stats = report.outcome, report.stats
    return {
        "outcome": outcome,
        "seconds": time.perf_counter() - started,
        "cpu": time.process_time() - cpu,
        "nodes": stats.nodes,
        "stored": stats.facts_stored,
        "table_clears": stats.table_clears,
    }


def run_cli(store_dir: Path, key: str, limit: float, search: str, jobs: int) -> dict[str, object]:
    """`sproutsdb solve --jobs N` as a user runs it; CPU seconds are all its processes'."""
    started = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "sproutsdb",
                "solve",
                key,
                "--outcome-only",
                "--quiet",
                "--json",
                "--jobs",
                str(jobs),
                "--search",
                search,
                "--store",
                str(store_dir),
            ],
            capture_output=True,
            text=True,
            timeout=limit,
            check=True,
        )
    except subprocess.TimeoutExpired:
        raise OutOfTime from None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = json.loads(done.stdout)
    return {
        "outcome": report["outcome"],
        "seconds": time.perf_counter() - started,
        "cpu": (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime),
        "nodes": None,
        "stored": report["stored"],
        "table_clears": None,
    }


def one(n: int, limit: float, search: str, jobs: int) -> dict[str, object]:
    """Fresh then warm solve of 0*n in this process (the parent runs one process per n)."""
    with tempfile.TemporaryDirectory(prefix=f"bench-solve-{n}-") as tmp:
        store_dir = Path(tmp) / "store"
        try:
            fresh = run(store_dir, f"0*{n}", limit, search, jobs)
        except OutOfTime:
            return {"n": n, "outcome": None}
        warm = run(store_dir, f"0*{n}", limit, search)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    if jobs > 1:
        peak = max(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
    return {
        "n": n,
        **fresh,
        "warm_seconds": warm["seconds"],
        "warm_nodes": warm["nodes"],
        "peak_rss_mb": peak,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-n", type=int, default=10)
    parser.add_argument("--max-n", type=int, default=20)
    parser.add_argument("--limit", type=float, default=600.0, help="seconds per fresh run")
    parser.add_argument(
        "--search", choices=SEARCHES, default="dfpn", help="normal-play search (default dfpn)"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="processes per solve (sproutsdb solve --jobs N)"
    )
    parser.add_argument("--save", type=Path, help="write the figures to this JSON file")
    parser.add_argument("--baseline", type=Path, help="a saved run to print ratios against")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child run
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(one(args.one, args.limit, args.search, args.jobs)))
        return
    baseline = json.loads(args.baseline.read_text()) if args.baseline else {}

    figures: dict[str, object] = {
        "canon_version": CANON_VERSION,
        "implementation": sprouts_game.IMPLEMENTATION,
        "search": args.search,
        "jobs": args.jobs,
    }
    print(
        f"engine: {sprouts_game.IMPLEMENTATION}, canon_version {CANON_VERSION}, "
        f"search {args.search}, jobs {args.jobs}"
    )
    print(
        f"{'n':>3} {'out':>3} {'wall s':>8} {'cpu s':>8} {'visits':>9} {'stored':>7} "
        f"{'RSS MB':>6} {'warm s':>7} {'SPOTS s':>8} {'cpu/SPOTS':>10} "
        f"{'SPOTS it':>9} {'visits/it':>9}"
    )
    for n in range(args.min_n, args.max_n + 1):
        child = subprocess.run(
            [
                sys.executable,
                __file__,
                "--one",
                str(n),
                "--limit",
                str(args.limit),
                "--search",
                args.search,
                "--jobs",
                str(args.jobs),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        row = json.loads(child.stdout)
        if row["outcome"] is None:
            print(
                f"{n:>3} {'-':>3} {'>' + str(int(args.limit)):>8}  (stopped at the limit)",
                flush=True,
            )
            figures[f"0*{n}"] = {"outcome": None, "limit": args.limit}
            continue
        spots = SPOTS_SECONDS.get(n)
        spots_it = SPOTS_ITERATIONS.get(n)
        # CPU seconds against SPOTS's one-core seconds: on a shared machine our wall
        # seconds measure the load, not the solver.
        ratio = (
            f"{row['cpu'] / spots[1]:.2f}-{row['cpu'] / spots[0]:.2f}"
            if spots and spots[0] != spots[1]
            else (f"{row['cpu'] / spots[0]:.2f}" if spots else "")
        )
        visits = row["nodes"]
        print(
            f"{n:>3} {row['outcome']:>3} {row['seconds']:>8.1f} {row['cpu']:>8.1f} "
            f"{visits if visits is not None else '-':>9} {row['stored']:>7} "
            f"{row['peak_rss_mb']:>6} {row['warm_seconds']:>7.2f} "
            f"{f'{spots[0]}-{spots[1]}' if spots and spots[0] != spots[1] else (spots[0] if spots else ''):>8} "
            f"{ratio:>10} {spots_it or '':>9} "
            f"{visits / spots_it if visits and spots_it else '':>9.4}",
            flush=True,
        )
        figures[f"0*{n}"] = {key: value for key, value in row.items() if key != "n"}
        before = baseline.get(f"0*{n}")
        if isinstance(before, dict) and visits:
            print(
                f"    against {args.baseline}: nodes {before['nodes']} -> {visits} "
                f"(x{visits / before['nodes']:.3f}), seconds {before['seconds']:.2f} -> "
                f"{row['seconds']:.2f} (x{row['seconds'] / before['seconds']:.3f})",
                flush=True,
            )
        if args.save:
            args.save.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
