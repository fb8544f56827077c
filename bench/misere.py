"""Misère outcomes of 0*n on an RCT table, each n in a process of its own: outcome,
seconds (wall and CPU), df-pn visits, stored losing nodes, pruned proof size, peak RSS,
and the CPU seconds of opening the table ("open s").

    python bench/misere.py [--from 12] [--to 20] [--minutes 20] [--cycles 3] [--jobs N] [--json]

Each n gets a fresh in-memory store, the shipped S6 table (data/s6.rcttable) or --table
FILE (opened as `solve --rct-table` opens it: S7 in place, from its index), and at most
--minutes of df-pn search; a run that runs out of time is reported as such and the next
n is tried (a larger n may be a quick win: 0*16 is W). With --jobs N the store is a fresh
LMDB store in a temporary folder instead (for N = 1 too, so that the two compare), shared
with N - 1 helper processes as `solve --misere --jobs N` runs them; "CPU s" is then the
main process's and "all CPU s" adds the helpers'. A finished search is then checked
as `check --misere --prune --cycles K` does: the checker re-derives the outcome from the
stored losing nodes alone (it must be clean, with the same outcome) and "proof L" is the
smallest proof it found, in losing nodes. Every outcome must equal OEIS A164950; the
script exits 1 at the first one that does not, or at a check that is not clean.

"paper pos." is the misère paper's count of positions in its proofs (Lemoine & Viennot,
Figure 10, n ≤ 17, reached in 20 hours in 2009); the paper counts positions beyond its
S6 table, we count losing nodes whose RCT parts the table has already reduced, so the
two measure the same proofs differently. "peak RSS" is the process's (table included).

Issue #28's table, n = 12..21, gathered from the runs logged below (as of 2026-12-05; a row
is one run, or a chain of resumed runs, and every figure in it is that run's). start:
"fresh" an empty store; "seeded" the results library's certificates of 0*1..0*(n-1) first
(`--seed-results`); "chain" 0*(n-1) solved first on the same empty store, same flags (its
time not in the row: see c); "ckpt" 0*21's checkpoint of 2026-12-01 23:09 (526,763 nodes, 8 of 12
options settled) imported into a new store, then seeded. wall s: running time of the search
(seeding excluded); "p20" 0*20's pruned proof on S7 (bench/checkpoints/misere-0x20-s7.spdbx,
42,934 nodes) imported into a new store; CPU s: user + system of every process of the run; visits: the main
search's; stored L: the losing nodes the run stored; proof L: a pruned proof of the run's
store by its check, or "lib" the results library's certificate (pruned over cycles, then
tightened); paper: Figure 10's positions. Every outcome is A164950's (0*21: not in it) and
every check that was run is clean (no proof L: that run's store was not checked). Rows marked * were on a VM loaded by other sessions (compare CPU s; the
same runs idle, 2026-11-27, wall s jobs 1 / jobs 2: 0*12 19.6 / 24.8-28.8, 0*13 9.4 /
13.3-14.2, 0*14 26.6 / 21.9-24.1).

  n  out base jobs start   wall s    CPU s      visits  stored L   proof L  paper  peak RSS  run
 12   W   S6   1  fresh      29.0     14.5      44,908     1,159       452    983    367 MB  11-24 *
 12   W   S6   2  fresh      36.9     18.2      42,643     1,805       509                   11-25 *
 12   W   S7   1  fresh       6.3     15.6      30,960       773       411           1299 MB  12-02
 12   W   S7   2  fresh      10.0     18.3      40,522     1,419       587           1281 MB  12-04
 13   L   S6   1  fresh       8.8      4.4      17,380       384       247  1,082    222 MB  11-24 *
 13   L   S6   2  fresh      16.4      8.2      20,906       508       283                   11-25 *
 13   L   S7   1  fresh      95.0     93.5      11,100       310       198           1678 MB  11-27 s
 13   L   S7   2  fresh       4.5      6.8      12,069       268       172           1216 MB  12-04
 14   L   S6   1  fresh      31.9     15.7      46,306       861       532  3,517    413 MB  11-24 *
 14   L   S6   2  fresh      33.2     22.1      49,984     1,158       502                   11-25 *
 14   L   S7   1  fresh     123.7    122.0      61,732     1,063       543           1681 MB  11-27 s
 14   L   S7   2  fresh      15.3     28.5      53,204     1,116       422           1314 MB  12-04
 15   L   S6   1  fresh     225.2    224.5     479,475     7,807     2,958  6,906    381 MB  11-28
 15   L   S6   2  fresh     113.3    219.3     233,651                                341 MB  11-28
 15   L   S6   2  fresh     131.5    129.9     323,708     9,179     2,989            403 MB  12-05 q
 15   L   S7   1  fresh     215.6    212.2     243,165     3,976     1,997           1979 MB  11-27 s
 15   L   S7   2  fresh      58.9    114.4     243,445     6,136     2,234           1495 MB  12-04
 16   W   S6   1  fresh     409.0    408.1     879,565    14,495     3,769  8,981    424 MB  11-28
 16   W   S6   2  fresh     407.0    797.5     705,863                                417 MB  11-28
 16   W   S6   2  fresh     232.5    229.3     613,441    20,309     3,739            468 MB  12-05 q
 16   W   S7   1  fresh     739.0    546.6     823,146    14,446     3,846           2086 MB  11-27 s
 16   W   S7   2  fresh     143.6    280.0     599,427    20,266     3,596           1601 MB  12-04
 17   W   S6   1  fresh     478.2    477.3   1,608,717    23,498     8,344 17,583    470 MB  11-28
 17   W   S6   1  fresh     165.8    165.0   1,608,717    23,498   8,384 u           469 MB  12-05 q
 17   W   S6   2  fresh     434.7    854.2   1,099,792                                452 MB  11-28
 17   W   S6   2  fresh     278.6    274.9     982,649    30,301     8,770            569 MB  12-05 q
 17   W   S7   1  fresh    1111.9    709.7   1,246,777    19,299     8,031           1998 MB  11-27 s
 17   W   S7   2  fresh     143.5    282.6     688,389    22,051     7,566           1632 MB  12-04
 18   W   S6   1  fresh    10,756    9,657  11,318,526   137,381 41,581 lib          2411 MB  11-27 (2 runs)
 18   W   S6   1  fresh     2,162    2,144  11,279,220   136,565    47,088           2653 MB  12-04 e
 18   W   S6   1  seeded    3,189    3,168   8,305,326   107,626                    1976 MB  12-02
 18   W   S6   2  seeded    2,951    5,863   6,896,828    80,598                    1760 MB  11-29
 18   W   S6   2  seeded    1,758    3,501   6,883,956    81,720  48,964 u           1640 MB  12-01 f
 18   W   S6   2  fresh     1,814    3,592   8,686,491   188,481    51,832           2581 MB  12-04 m
 18   -   S7   1  fresh     4,587    3,973   5,762,494    77,401 undecided          3288 MB  11-27
 18   W   S7   1  fresh     4,404    4,376   8,720,653   113,584  38,574 u           3292 MB  12-02
 18   W   S7   1  fresh     3,029    2,221   8,720,653   113,584    38,574           4001 MB  12-04 e
 18   W   S7   1  fresh     2,608    1,929   8,720,653   113,584    38,574           4009 MB  12-04 k
 18   W   S7   2  fresh     2,444    4,599   7,158,172    87,101    44,580           3231 MB  12-04
 18   W   S7   2  fresh     1,476    2,939   6,514,205    80,531                    3004 MB  12-04 p
 18   W   S7   2  chain     1,339    2,669   6,110,988    75,441  39,113 u           2967 MB  12-04 c
 19   L   S6   1  fresh     4,917    4,611   5,161,236    49,691 15,117 lib          1826 MB  11-27 (3 runs)
 19   L   S6   1  fresh     1,354    1,139   4,963,365    49,744    17,671           1768 MB  12-04 e
 19   L   S6   1  seeded      136      142     593,703     4,959                     702 MB  12-02
 19   L   S6   2  seeded      101      194     297,598     1,840    20,012            460 MB  11-28
 19   L   S6   2  fresh     1,443    1,604   3,734,795    58,331    19,556           1630 MB  12-04 m
 19   L   S7   1  seeded      113      123     558,547     4,805  not clean x       1820 MB  12-02 n
 19   L   S7   1  fresh     1,140    1,139   4,396,057    45,787    16,595           2875 MB  12-04
 19   L   S7   1  fresh     1,272      968   4,396,057    45,787    16,595           2892 MB  12-04 k
 19   L   S7   2  fresh        683    1,377   1,907,029    19,548    13,446           2336 MB  12-02
 20   L   S6 1, 2 fresh   ~13,000  ~19,500     ~18.1 M   167,729 39,797 lib          4300 MB  11-27.. (6 runs)
 20   L   S6   1  fresh     5,914    3,939  18,748,220   165,083    51,924           2772 MB  12-04 m
 20   L   S6   2  fresh     4,077    8,085  16,650,487   216,916    53,936           2553 MB  12-05 q
 20   L   S6   1  seeded    3,568    3,762  12,276,626   108,935    53,588 u           2219 MB  12-02 n
 20   L   S6   2  seeded    4,440    8,892   7,746,133    51,528    52,695           1650 MB  11-28
 20   L   S7   1  fresh     4,134    3,788  12,805,597   126,728    41,545           3969 MB  12-04 e
 20   L   S7   1  fresh     2,872    2,862  12,805,597   126,728    41,545           3507 MB  12-05 q
 20   L   S7   2  fresh     3,035    6,035   8,121,972    71,045    42,934           3310 MB  12-04
 21   L   S6   1  ckpt      2,460    2,454   8,419,975    29,951                    2023 MB  12-02
 21   L   S6   2  ckpt      1,432   ~2,820   4,934,709    31,052 146,051 lib         1700 MB  12-02
 21   L   S7   1  ckpt      2,721    2,841  13,965,562    98,863            x       3456 MB  12-02 n
 21   L   S7   2  p20      11,413   21,125  49,550,968   247,912   149,794          3724 MB  12-04 d
 21   -   S7   1  p20      ~9,940   ~9,940 ~50,069,000  ~279,300  (4 of 12 settled)   3951 MB  12-05 r

s: S7 rows 13-16 loaded S7's trees one by one (~90 of their CPU s), 17 from the snapshot;
three runs on the two cores. f: one of the faster machines of this kind (0.51 CPU ms a main
visit against 0.70-0.85 on the others). u: the losing nodes its check used, not pruned.
n: the 12-02 evening rows, on a new machine, two at a time (0*20 beside the S7 build and
the S7 rows); their CPU s include the seeding, which re-derived the library once on the new
install (0*20: ~220 s of its 3,792 s wall; 0*21 on S7: 0*20's 138 s).
c: the chain's 0*17 took 1:36 wall (86 s of search), 181 CPU s, 644,968 visits, 7,368
stored, so the chain from an empty store took 24:10 wall. c and p: the 12-04 afternoon, a
faster instance of this machine kind than the morning's 12-04 rows (0.45 CPU ms a main
visit against 0.64); p is the fresh run paired with c, right after it (not checked).
d: two runs, from S7's 0*20 proof alone: the first stopped by Ctrl-C after 2:08 wall with 5
of 12 root options shown winning (see the 2026-12-04 evening log), the second resumed from
its store and decided L in 1:02 wall (the 2026-12-04 late log); the proof, pruned by its
check and checked clean again alone in a fresh store with S7, is
bench/checkpoints/misere-0x21-s7.spdbx.
e: the 2026-12-04 night rows, one core each, two to four processes at a time on the two
cores (compare CPU s: the wall is inflated); k: the same, with the S7 index's sampled keys and
bound on lives (bench/rct_lookup.py): the same search to the visit, 0.87x the CPU of e.
m: the 2026-12-04 last rows, S6 from an empty store on the instance of e and k: 0*18
--jobs 2 alone on the two cores (its wall is fair), the others beside other runs (compare
CPU s; see the log).
r: not decided yet: two runs from S7's 0*20 proof alone, resumable (the 2026-12-05 log,
second entry); "-" no outcome; ~ the first run's figures from its last progress line.
q: the 2026-12-05 rows, on the instance of e, k and m: 0*20 alone on the two cores (its wall
is fair); S7 0*20 --jobs 1 with the index fix on one core; 0*17 --jobs 1 through `sproutsdb
solve 0*17 --misere --store NEW`, and 0*15-0*17 --jobs 2 niced, each beside that S7 run.
x: the store mixes S6-keyed facts (the seeded library, S6's checkpoint) with an S7 search;
such a store did not check with S7 alone at 0*14 and 0*19 (0*21's was not checked; see the
12-02 evening log): the outcome agrees with A164950 and the library, but is no proof here.
0*20 fresh: run1-2 on one core, run3-6 with --jobs 2, its wall time with the stopped minutes
estimated out. 0*21 --jobs 2: 34:12 in all, of which 10:20 (and so ~620 of its 3,438 CPU s)
re-derived the library on a new install; --jobs 1 found the cached marks (5 s); stored L
there is the store's growth (the main search's own: 14,008). The 12-02 rows ran two at a
time on the two cores (0*21 --jobs 1 beside the S7 build, then 0*19 and 0*18 seeded beside
0*18 on S7): compare CPU s. The 12-04 rows (S7 fresh, --jobs 2) ran alone but for the
checks of 0*20 beside ~6 of the first 10 minutes of 0*18. Not measured: 0*21 fresh in one chain (the runs of 2026-11-27..29 before the checkpoint, ~66.6
M main visits and ~44,800 CPU s, were stopped and resumed on three machines; the replies
solved as roots are logged under 2026-12-01); 0*21 on S7 from an empty store in one
chain (the d row starts from 0*20's pruned S7 proof, which the 12-04 fresh 0*20 row
made); S6 at 0*21 on today's code. S6 0*18 fresh took 4.5x
less CPU on 12-04 than on 11-27, for the same visits: every older S6 row overstates S6's
cost today.

Figures of 2026-11-24 (evening), `--from N --to N --cycles 1`, after the C core's faster
land children (commits "C core: skip moves that only swap interchangeable boundaries...")
and the misère search's per-visit cuts (nodes as plain tuples, folded RCT moves, rare
full garbage collections). A 2-core VM shared with two other sessions and up to three
runs of this script (load average 3-6: each process got 25-50 % of a core; compare CPU
seconds):

      n  outcome A164950   wall s    CPU s     visits  stored L  proof L  paper pos.  check  peak RSS
     12        W       W     29.0     14.5     44,908     1,159      452         983  clean    367 MB
     13        L       L      8.8      4.4     17,380       384      247       1,082  clean    222 MB
     14        L       L     31.9     15.7     46,306       861      532       3,517  clean    413 MB
     15        L       L    673.4    194.8    479,475     7,807    2,958       6,906  clean   1306 MB
     16        W       W    938.3    369.0    879,565    14,495    3,769       8,981  clean   1546 MB
     17        W       W    ~1344    613.5  1,608,717    23,498    8,344      17,583  clean   1694 MB

(0*16 and 0*17 in one run each, from an empty store; the check of 0*16 took 15.0 CPU s,
of 0*17 23.7. 0*17 ran before the last cut, rare full collections, which a live profile
of it puts at about 20 % of its CPU: expect about 500 CPU s now. 0*18 was stopped
unfinished at 1,020 CPU s: 2,087,986 visits, 22,192 stored losing nodes, 2.1 GB.) On the same VM before
the search's cuts, with the faster C core: 0*12 19.3 CPU s, 0*13 6.2, 0*14 21.5 (same
visits); before both, the morning's figures (load average 11-14, `--cycles 2`; 0*12 with
the earlier δ = 1 + lives // 4):

      n  outcome A164950   wall s    CPU s     visits  stored L  proof L  paper pos.  check  peak RSS
     12        W       W    396.2     33.1     46,092       964      478         983  clean    516 MB
     13        L       L    146.9     12.9     17,380       384      243       1,082  clean    287 MB
     14        L       L    625.9     46.8     46,306       861      518       3,517  clean    606 MB
     15        L       L   2030.8    463.7    479,475     7,807    2,958       6,906  clean   1749 MB
     16        W       W   2647.0   1047.5  1,040,586    18,004    5,197       8,981  clean   2327 MB

(0*15 and 0*16 then with `solve --misere --store` (LMDB) and `check --misere --root`;
0*16 was a second run resumed from the 1,779 losing nodes of a first of 222 CPU s, about
21 CPU minutes in all. 0*17 was not started.) CPU per visit is now about 0.3 ms at 0*12
to 0.4 ms at 0*17, and the C core's children of new lands are 45-50 % of it at 0*12-0*14
(each distinct land's children computed once: 14,528 lands at 0*12, 0.5 ms each on
average, 2.3 ms at 30 lives), 30-36 % in live profiles of 0*16 and 0*17.

`--jobs 1` against `--jobs 2` (2026-11-25, `--from N --to N --cycles 1 --jobs J`, one n
after the other, both on LMDB; load average 7-11 on the 2 cores, and the kernel's
autogroup scheduling gives this session's processes one share of the CPU, so the helper
takes its CPU from the main search rather than from the other sessions: wall seconds here
cannot show a speed-up; compare visits and the main's CPU seconds):

      n  jobs   wall s  CPU s (main)  all CPU s   visits  stored L  proof L  check
     12     1     52.0           9.2        9.2   44,908     1,159      452  clean
     12     2     36.9           8.9       18.2   42,643     1,805      509  clean
     13     1      5.3           2.7        2.7   17,380       384      247  clean
     13     2     16.4           4.0        8.2   20,906       508      283  clean
     14     1     19.3           9.9        9.9   46,306       861      532  clean
     14     2     33.2          10.7       22.1   49,984     1,158      502  clean

Other runs of `--jobs 2` on the same load: 0*12 37,344 visits (main 9.0 CPU s), 0*13
13,137-18,080, 0*14 31,126-55,338 (a df-pn path moved by the helper's facts may be longer
or shorter). The outcome and a clean check never change; the main search's visits move by
-33 % to +20 %, and the helper's CPU is mostly spent on options the main search proves too.

Memory (2026-11-26, issue #28; in-process runs on an in-memory store, resident MB as the
search goes; the same visits before and after): the keys asked of the store (4.2 M strings,
~0.5 GB, at 0*15 before their clear at the table capacity), the land RCT memo (1.5 M lands,
140 MB), the land moves LRU (207 MB) and the children lists (98 MB) held most of 0*15's
1,098 MB peak. Now bounded or compacted (solver/misere/solver.py's constants): 0*14 331 ->
212 MB peak; 0*15 at 75 k / 131 k / 201 k visits 348 / 489 / 655 MB -> 215 / 264 / 301 MB.
Whole solves through the CLI after it (`sproutsdb solve 0*n --misere` on a fresh LMDB store,
/usr/bin/time, a machine ~1.7x slower than the one of the figures above, load 1-2):
0*16 W, 879,565 visits, 464 CPU s, 465 MB peak (before: 1.55-1.63 GB); 0*17 W, 1,608,717
visits, 552 CPU s, 532 MB peak (before: 1.69-1.81 GB); visits as before, outcomes as A164950.
With the land moves LRU at 2^14 lands instead of 2^15 (tried, not kept): 0*17 494 MB peak,
the same visits, but 663 CPU s (+20 %: lands' moves computed again), so the default stays.

The df-pn numbers (2026-11-27, issue #28): what still grew, by ~0.8 entries a visit, was the
proof-number table (~0.4 a visit, undecided key -> (φ, δ); at 0*14 ~173 bytes an entry: a
key string of ~92, a fresh tuple of ~59) and the proven-node table (~0.4, key -> losing?, a
key string of ~100). The numbers' entries now share one tuple per (φ, δ) value (0*14: 2,687
distinct pairs in 18,545 entries) and the misère search keys them by hash(key) (a 36-byte
int instead of a string that only the table held once its parent's children list had left
the LRU; a collision would only steer). The proven nodes stay keyed by the exact key. Paired
runs, `sproutsdb solve 0*n --misere --store NEW --quiet --json` under /usr/bin/time, before
(026f8c7) and after, both runs of a pair at once on the 2 cores, nice 19, beside another
session's work; the same outcomes, visits and stored losing nodes:

      n  outcome     visits  stored L  user CPU s before -> after  peak RSS before -> after
     14        L     46,306       861           30.4 -> 30.5           230 -> 229 MB
     15        L    479,475     7,807          323.0 -> 322.6          399 -> 389 MB
     17        W  1,608,717    23,498          723.9 -> 720.2          552 -> 469 MB

(0*17 before: 552 MB and 724 CPU s here against 532 MB and 552 s last session, the two runs
sharing the cores. Resident as it ran, 0*17 before/after: 370/359 MB at 185 CPU s, 441/406
at 365, 480/437 at 542, 517/456 at 660: the gap grows with the tables.) A misère resume
record now names the numbers of the nodes in flight and in the kept children lists only:
the table no longer holds the other keys (the in-process resume test of 0*13 still reruns
with fewer visits than a fresh run). Not done: interning the land strings of the moves LRU
(0*14: 293 k string objects for 231 k distinct texts, 4.5 of 22 MB to gain, less than the
~7 MB, estimated, that the interned dict would take).

--jobs 2 with busy marks (ops/jobs/busy_marks.py; same machine, load ~3, wall s): 0*12 W
--jobs 1 21.2, --jobs 2 25.4 and 24.4 (main 41,568 and 40,777 visits of 44,908); 0*13 L
--jobs 1 11.1, --jobs 2 12.4 (main 15,548 of 17,380). Helpers that solve the root itself
beside the main search (tried, not kept): 0*12 21.3 and 20.8, 0*13 13.3. Still no gain: the
main search's visits hardly drop, so what the helpers prove is mostly what it proves too.

Again on an idle machine, 2026-11-27 01:30 (a niced helper agent beside, load ~4 counting
its processes; wall s, --jobs 1 / --jobs 2): 0*12 W 28.5 / 28.3 (main 47,097 visits of
44,908), 0*13 L 11.9 / 12.3 (15,580 of 17,380), 0*14 L 27.2 / 25.3 (39,990 of 46,306):
1.0-1.08x. Every outcome as A164950. Why: 0*14's last root child in the main search's
order, 0*12.1a1a, holds 25,862 of its 46,306 visits (56 %; 0*13's 0*11.1a1a 34 %), and a
helper takes it first, from the far end, but alone it takes 99,363 visits (47.5 CPU s;
0*11.1a1a 13,014 against 5,835): inside the one search its siblings' losing nodes make it
cheap. So the root's options cannot feed a second process here; the division has to be
inside that child (the busy marks), and the helper's own proof of it mostly goes to waste.

df-pn's widening factor ε (second-best numbers times 1 + ε, solver/search/dfpn.py), swept
2026-11-27 on an in-memory store, visits of 0*12 / 0*13 / 0*14: ε = 0 80,823 / 36,963 /
154,612; 0.25 (the default) 44,908 / 17,380 / 46,306; 0.5 44,769 / 21,385 / 59,805; 1.0
54,094 / 19,710 / 74,651. The default is the best of these; normal play's sweep is in
bench/solve.py.

S7 as the base against S6, 2026-11-27, the same harness (MisereSolver on an in-memory store,
one process loading the table once; `rct-table build 0*7`: 3,218,358 positions, 598,685
RCTs, 47,997,222 bytes, 1,046.5 CPU s and 4.9 GB peak on this slower machine). Loading:
S6 2.0 CPU s / 142 MB, S7 99.6 CPU s / 2,589 MB. Visits (CPU s) with S6 -> S7: 0*10 W
2,646 -> 1,604; 0*11 W 1,549 -> 1,542; 0*12 W 44,908 (18.8) -> 30,960 (12.9); 0*13 L
17,380 (5.5) -> 11,100 (3.8); 0*14 L 46,306 (22.2) -> 61,732 (29.2). So S7 does not cost
visits as a rule: it saves 31-39 % at 10, 12 and 13 and costs 33 % at 14, within the ±30-200 %
that any change of df-pn's order moves them (the ε sweep above). What it costs for sure is
the load: 98 CPU s more and 2.4 GB, which a compact table would have to remove first.

S7 opened in place, 2026-11-27 (later): `rct-table build 0*7` again, 1,142.6 CPU s, 5.05 GB
peak, the same 47,997,222 bytes; its first use re-derived every position (1,023.8 CPU s,
2,635 MB; a build now leaves that mark itself) and wrote an index of its positions (203 MB,
memory-mapped) and a snapshot of its trees (101 MB). Opening it since: 6.6 CPU s and 1,164 MB
(whole: 99.6 s and 2,589 MB; the trees' children sets, 11.3 M entries in 598,685 frozensets,
are 753 MB of it). Loading trees one by one as a search meets them does not work: the RCT of
0*7 alone reaches 596,195 of the 598,685 trees (91.7 CPU s). `--table S7 --from 13 --to 17
--cycles 1` (0*13-0*16 loading trees one by one, so their CPU s include ~90 s of loading;
0*17 from the snapshot; three CPU-bound processes on the 2 cores, two 0*18 runs beside):

      n  outcome A164950   wall s    CPU s     visits  stored L  proof L  paper pos.  check  peak RSS  open s
     13        L       L     95.0     93.5     11,100       310      198       1,082  clean   1678 MB     0.4
     14        L       L    123.7    122.0     61,732     1,063      543       3,517  clean   1681 MB     0.4
     15        L       L    215.6    212.2    243,165     3,976    1,997       6,906  clean   1979 MB     0.4
     16        W       W    739.0    546.6    823,146    14,446    3,846       8,981  clean   2086 MB     0.3
     17        W       W   1111.9    709.7  1,246,777    19,299    8,031      17,583  clean   1998 MB     7.0

Visits S6 -> S7: 13 -36 %, 14 +33 %, 15 -49 %, 16 -6 %, 17 -22 %; 13-17 together 3,031,443 ->
2,385,920 (-21 %). Pruned proofs S6 -> S7: 247 -> 198, 532 -> 543, 2,958 -> 1,997, 3,769 ->
3,846, 8,344 -> 8,031 losing nodes. S7 is the better base for visits at 15 and 17, but not
the default: (1) it costs 1.2 GB and 6.6 s to open against S6's 142 MB and 2 s (CPU per
visit is the same: measured side by side at 0*18 below; here, with three processes on two
cores, 0*17 spent 0.56 ms a visit); (2) a proof keyed by S7's trees needs S7 to
be checked (its lands of 19-21 lives are beyond what a check re-derives land by land), which
is 20 CPU minutes and 5 GB to build, so the shipped certificates stay on S6. With
`solve --misere --rct-table S7` it is one option away.

0*18, 2026-11-27, `sproutsdb solve 0*18 --misere --store NEW --json` (S6) and the same with
`--rct-table S7` (opened from its snapshot), --jobs 1, one core each (the other core busy all
along), both paused 855 s for the test suite, then stopped with Ctrl-C (both resume):

      base    ran wall s  user CPU s      visits  stored L  peak RSS  outcome
      S6           7,913       7,065   9,774,590   122,998   1543 MB  undecided
      S7           4,587       3,973   5,762,494    77,401   3288 MB  undecided

S6 had 2.57 M visits at 30 minutes of wall time: the 30-minute goal is missed by more than
4x (0*17 took 1.61 M visits; the resumed run below decided it, W, at 11.3 M). CPU per visit measured
side by side, the two runs alone on the two cores, in four windows of ~9.5 minutes: S6 0.69,
0.69, 0.71, 0.84 ms; S7 0.88, 0.72, 0.56, 0.65 ms; over the 37.5 minutes S6 0.727 and S7
0.684 ms. So S7 does not cost CPU per visit; what it costs is memory (3.3 GB peak here).

Where a visit's CPU goes, 2026-11-27 (S6, in-memory store, one core with 0*18 on the
other): 0*15 takes 230 CPU s for 479,475 visits; the C core's children of new lands are
84 s of it (130,339 calls, 0.64 ms each; 112,920 distinct lands, so an unbounded land LRU
would save 13 % of the calls and no CPU measured), the rest Python spread over the expansion
(_sized_children 9 % self at 0*14, df-pn's _mid 6 %, _land_moves 6 %, _expand 7 %, store
reads and writes 8 %). The core's memo of canonical lands at 2²⁰ instead of 2¹⁶ makes a
pass over 0*14's 16,211 lands 15 % faster (7.05 against 8.29 s), not a lever at this size.
The canonical form itself (tidy_land, the boundary and region searches) is the floor.
df-pn's table of proof numbers fills at 4 M entries (about 0.36 per visit: 0*15 ends at
171,627), so past ~11 M visits: 0*18's first run ended near it. Emptying it whole then,
as until now, costs visits; dropping its older half costs few. Squeezed tables (visits,
whole / older half; never full: 17,380, 46,306, 479,475): 0*13 at 2,048 entries 27,480 /
23,875; 0*14 at 4,096 102,382 / 76,647, at 8,192 59,361 / 58,290; 0*15 at 65,536 614,553 /
484,819. (Normal play, same squeeze at 2¹⁵ entries: 0*18 207,845 / 213,608, 0*20 226,113 /
214,768 against 273,244 and 241,996 never full: even, the path's luck either way.)

0*18 resumed, 2026-11-27: the same command on the S6 run's store decided it, W (A164950),
after 1,543,936 more visits (14,383 more losing nodes), 2,843 s wall, 2,575 user CPU s and
2,411 MB peak. 1,055 s of those went to re-deriving the 2,097,152 winning nodes the first
run's record claimed (26.8 MB) before the first visit; they are now re-derived as the search
meets them (bench/resume.py), 2.9 CPU s of take-up. Both runs: 11,318,526 visits, 137,381
stored losing nodes, 9,657 CPU s (user + system), 10,756 s of running wall time (3.0 h):
the 30-minute goal missed 6x. Certificate (`bench/build_results.py --from DIR --misere 18`):
4 cycles of 46,460 / 43,168 / 42,109 / 41,715 losing nodes, tightened to 41,581 beyond S6
that its check alone verifies (misere-0x18.spdbx, 230 kB), in 1,686 CPU s and 1.49 GB.

0*19 (A164950: L), 2026-11-27, `sproutsdb solve 0*19 --misere --store NEW --json` (S6),
one core, stopped with Ctrl-C and resumed once (take-up of its 13.6 MB record: ~6 s), then
stopped again (it resumes): 4,008,253 visits (2,339,498 + 1,668,755), 37,302 stored losing
nodes, 3,282 user CPU s, 3,311 s of running wall time (55 min), peak RSS 623 MB and then
1,826 MB. Then resumed a second time, 2026-11-27 (same command, same store, beside other
runs: load 2-3): decided, L, as A164950 says, after 1,152,983 more visits and 12,389 more
stored losing nodes, 1,318 user CPU s, 1,606 s wall, 1,824 MB peak. All three runs:
5,161,236 visits, 49,691 stored losing nodes, 4,611 CPU s (user + system), 4,917 s of
running wall time (82 min): the 60-minute goal missed by 1.37x (0*18: 11.3 M visits,
3.0 h).

0*17 within 500 MB, checked again 2026-11-27 at 3c90f31 (after the lazy resume claims and
df-pn's half-dropping table): `sproutsdb solve 0*17 --misere --store NEW --quiet --json`
under /usr/bin/time, beside the 0*19 run (load 2-3 on 2 cores): W, 1,608,717 visits,
23,498 stored losing nodes (as ever), 789.5 user CPU s, 915 s wall, peak RSS 467 MiB.

0*20 (A164950: L), started 2026-11-27, `sproutsdb solve 0*20 --misere --store NEW --json`
(S6), one core beside other runs, paused during a test run, stopped with Ctrl-C (it
resumes with the same command): 3,025,959 visits, 23,645 stored losing nodes, 2,233 user
CPU s, ~2,290 s of running wall time, peak RSS 691 MiB. Undecided. Resumed 2026-11-27
12:40-15:09 (same command, same store; one core beside other work, stopped with SIGSTOP
for about 35 minutes of measurements and tests, then Ctrl-C): 6,475,508 more visits,
59,150 more stored losing nodes, 5,291 user CPU s, peak RSS 3.53 GB, record 36 MB. Both
runs: 9,501,467 visits, 82,795 stored losing nodes, 7,524 user CPU s (2.1 CPU hours):
still undecided, the 2-hour goal passed (0*18 needed 11.3 M visits).

The garbage collector paused during a search (2026-11-27, solver/search/driver.py's
QuietCollector; a full collection every 10 minutes at most): a live py-spy profile of the
0*20 run (60 s, 9.6 M visits in, 1.1 GB resident) had 11.7 % of its samples in
gc_collect_main; an in-process 0*15 timed by gc.callbacks spent 21.6 s in 12,477 young and
20.0 s in 1,134 middle collections (wall, 3 processes on the 2 cores) of 226.7 CPU s, and
a young threshold of 50,000 (normal play's until now) changed little (33.5 s). With the
collector off all along, a full collection at the end freed 0 objects (misère 0*13, normal
0*14). Paired, both at once on the 2 cores beside the 0*20 run, in-process on an in-memory
store, before (young 700, oldest x100) -> after: 0*15 L, 479,475 visits both, 262.8 -> 230.8
CPU s (-12.2 %), 373 -> 365 MB peak.

A lone search reads its store whole (2026-11-27, solver/misere/solver.py READ_ALL_LIMIT):
the same live 0*20 profile, after the collector change, had 8.5 % of its samples in
_fetch's filter of new children's keys and 7.6 % in LmdbProofStore.get, asking about
hundreds of children per expansion of which the store had none (a search that is the only
writer of its store finds there only what its table has, once the store's facts are read
at the start: 95 k losing nodes at 0*20). Paired as above, but on a fresh LMDB store each
(`Solving` on `open_local_store`), before (key by key) -> after: 0*12 W 44,908 visits,
19.6 -> 18.5 CPU s, 33,603 -> 0 store reads; 0*15 L 479,475 visits and 7,807 stored both,
210.7 -> 185.4 CPU s (-12.0 %), 397,978 -> 0 store reads, 371 -> 358 MB peak.

0*21 (conjectured L), started 2026-11-27 14:32, `sproutsdb solve 0*21 --misere --store NEW
--json` (S6), one core beside the 0*20 run, stopped with Ctrl-C after 36 min: 2,779,606
visits, 9,221 stored losing nodes, 2,167 user CPU s, peak RSS 753 MB, record 3.5 MB.
Undecided; it resumes with the same command.

Both resumed again, 2026-11-27 15:25-18:05 (same commands and stores, one core each, paused
with SIGSTOP for paired measurements and a test run; each stopped and resumed three times to
take up the session's changes; visits of the first two stops from their last progress line):
  0*20: +7,694,524 visits, +50,246 stored losing nodes, +7,038 user CPU s, peak RSS 3.75 GB.
        All runs: ~17.2 M visits, 133,041 stored, 14,562 user CPU s (4.0 CPU hours);
        undecided. Its root's options proven winning: 8 of 11 at 16:05, 10 of 11 from 16:25
        on; the one open is 0*18.1a1a. Last run ~1,090 visits/s against ~830 before the
        collector and whole-store changes (same conditions: the 0*21 run on the other core).
  0*21: +7,027,780 visits, +35,622 stored, +4,130 user CPU s, peak RSS 2.27 GB. All runs:
        ~9.8 M visits, 44,843 stored, 6,297 user CPU s (1.75 CPU hours); undecided, none of
        its root's 12 options proven winning yet.

The helpers' last option last, and the main search kept in it (2026-11-27, 22:40-22:56, a
new machine of the same kind, the record runs stopped with SIGSTOP; `sproutsdb solve 0*n
--misere --jobs J --store NEW --json --quiet`, wall s, main visits): as normal play's
--jobs (bench/speedup_model.py), a helper now proves the root's options from the far end
but for the main search's last one, which it takes last, and the main search counts the
others as busy until that one is decided (ops/jobs/busy_marks.py's `HeldBackRoot`, `MainBusy`).
  0*12 W: --jobs 1 19.6 (44,908); as built 26.6, 28.8 (40,937, 41,412); now 28.6, 24.8,
          28.8 (49,849, 40,471, 57,760)
  0*13 L: --jobs 1 9.4 (17,380); now 14.2, 13.3, 14.1 (19,553, 18,476, 16,974)
  0*14 L: --jobs 1 26.6 (46,306); as built 26.6, 36.8 (53,777, 66,933); now 21.9, 24.0,
          24.1 (28,281, 35,533, 38,044): 1.1-1.2x, the main search's visits down 18-39 %
Every outcome as A164950. Still no gain at 0*12-0*13, where a helper's start (the S6 table
loaded again, ~2-4 s) is a large part of the run; the --jobs 2 rows for 0*18-0*21 are not
measured.

Canonical searches (2026-11-27, evening): a live perf and py-spy profile of the 0*20 run,
down to its open option 0*18.1a1a, had 45-47 % of its CPU in the C core's children of new
lands. Of that, three parts in four were canonical searches: of 3,000 lands sampled from
the search, 119,137 child shapes for 110,577 distinct canonical lands, so the memo's key
(the tidied shape) is not what misses; a canonical land is searched again once the memo
has forgotten it. callgrind on 400 of those lands: 5.8 leaves, 4.6 automorphisms and 568
automorphism tests a search. Two levers, each paired on 0*18.1a1a (in-process, in-memory
store; the two runs at once beside the record run; rates per CPU second):
  - a misère root of 54 lives or more (0*18 and up) keeps 2^21 canonical forms instead of
    2^16 (solver/misere/solver.py MISERE_LARGE_ROOT_LIVES): 1,327 -> 1,434 visits/s (+8 %),
    391 -> 628 MB peak, 400 s wall each (2^22: +7 % over 2^20, ~700 MB when full);
  - the canonical search learns once per path choice which automorphisms fix it (instead of
    testing every automorphism against the whole path at each branching node), and reads
    each region's boundaries by form from the colouring: the children of the 400 lands
    3.37 -> 2.77 G instructions (-17.7 %), the same canonical strings for 3,400 lands and
    their 149,923 children; 1,428 -> 1,543 visits/s (+8.1 %), 300 s wall each.
Tried, not kept: the land moves LRU at 2^17 lands instead of 2^15 (12 % of the core's
children calls of a 180 s run were lands met before): 1,646 -> 1,676 visits/s (+1.8 %) for
624 -> 960 MB peak, 500 s wall each.

Both resumed again, 2026-11-27 18:35-21:12 (same commands and stores; 0*21 paused or stopped
for most of the session, to leave its core to measurements; 0*20 stopped with SIGSTOP during
an idle --jobs 2 measurement and two test runs, and restarted twice to take up the changes
above; each restart spends its first ~25 minutes mostly checking the resume record's claims
of wins, 24.7 % of a live profile's samples 25 minutes in):
  0*20: +5,150,521 visits, +20,691 stored losing nodes, +5,658 user CPU s, peak RSS 4.05 GiB.
        All runs: ~22.4 M visits, 153,732 stored, ~20,220 user CPU s (5.6 CPU hours);
        undecided, 10 of its 11 root options proven winning, 0*18.1a1a still open.
  0*21: +169,230 visits, +346 stored, +183 user CPU s. All runs: ~10.0 M visits, 45,189
        stored, ~6,480 user CPU s; undecided, none of its 12 root options proven winning.

The machine was wiped between sessions (2026-11-27, evening): the stores above, 0*20's ~22.4 M
visits and 153,732 losing nodes and 0*21's ~10.0 M visits, were in /tmp and are lost. Both
runs started over (same commands, new stores; one core each, stopped with SIGSTOP during
measurements and a test run, then Ctrl-C), and their losing nodes now outlive a session as
bench/checkpoints/ (`export --kind misere`; README there):
  0*20: 8,625,005 visits, 81,241 stored losing nodes, 4,158 user CPU s, peak RSS 1.6 GB;
        1 of its 11 root options proven W (0*15.AB|0*4.AB, after 2,851 s and 2.57 M
        visits). Checkpoint: misere-0x20.spdbx, 448 kB (5.5 bytes a node).
  0*21: 4,783,261 visits, 23,978 stored, 2,569 user CPU s, peak RSS 1.05 GB; 0 of 12.
        Checkpoint: misere-0x21.spdbx, 134 kB.
A rerun from a checkpoint (import, then the same solve command on the new store) does not
have the resume record (df-pn's numbers): from an export of 0*20's first 38,750 nodes it
proved 0*15.AB|0*4.AB W after 6 s (13,948 visits), and in 197 s it made 438,569 visits and
stored 797 new losing nodes (the first run, at 182 s: 454,471 and 1,233). So the
checkpoint keeps what was proven, and the rerun walks the tree above it again.

The machine kept /tmp this time (2026-11-28): both runs resumed from their stores and resume
records (same commands), 00:30-00:51 one core each, then 0*21 stopped (Ctrl-C) and 0*20 on
both cores from 00:51 (`solve 0*20 --misere --jobs 2`, the main search from its record, the
helper afresh), stopped with SIGSTOP for about 70 minutes of idle measurements and a test
run, then Ctrl-C at 03:01:
  0*20: +101,543 visits (one core), then --jobs 2: main +4,254,030 visits in 2:10:33 wall
        (about 60 running minutes), 6,375 user CPU s for the main search and helper
        together, peak RSS 3.6 GB (the larger). Its root's options proven winning: 4 of 11 after
        8 minutes, 8 at 02:32, 10 at 02:42; open at the end: 0*18.1a1a only, as in the run
        lost with the last machine. All runs: ~13.0 M main visits plus the helper's,
        134,258 stored losing nodes, ~10,610 user CPU s (2.9 CPU hours). Checkpoint:
        misere-0x20.spdbx, 731 kB.
  0*21: +78,592 visits, +131 stored (24,109 in all); 0 of 12. Checkpoint: 135 kB.

--jobs 2 on larger roots, 2026-11-28 00:30-00:51 (the record runs stopped with SIGSTOP:
idle; `sproutsdb solve 0*n --misere --jobs J --store NEW --json --quiet` under
/usr/bin/time -v, whose user CPU s include the helper's; main visits and stored nodes):
  0*15 L: --jobs 1 225.2 s wall, 224.5 user CPU s, 479,475 visits, 381 MB; --jobs 2 113.3 s,
          219.3 CPU s, main 233,651 visits, 341 MB: 1.99x, no CPU spent twice
  0*16 W: --jobs 1 409.0 s, 408.1 CPU s, 879,565 visits, 424 MB; --jobs 2 407.0 s, 797.5 CPU s,
          main 705,863 visits, 417 MB: 1.00x
  0*17 W (01:31-01:52, with the news below): --jobs 1 478.2 s, 477.3 CPU s, 1,608,717 visits,
          470 MB; --jobs 2 434.7 s, 854.2 CPU s, main 1,099,792 visits, 452 MB: 1.10x. The
          main search's visits fell by 32 %, its wall time by 9 %: it made 2,580 visits a
          second against 3,413 alone (at 0*15 the same rate either way). Busy marks and news
          are 1-2 % of a live main's samples (the 0*20 run), so the rest is not traced: the
          part of the tree it is left, or the two processes sharing caches.
The division pays where the root loses (every option must be shown winning, and the helper
shows the far ones) and not where it wins (0*16, and 0*18 whose 30-minute goal this was for):
there one losing option is needed, the helper's options are mostly winning ones the main
search would have left alone, and the work to divide is inside the losing option (its
children, all winning), which no helper is given. Tried the same day, not kept (idle, one
run each, news as below): a helper that proves, far end first, the children of the root
option the main search is in whenever that is not the one it keeps, dropping that work
when the main search moves: 0*16 201.0 s (2.03x, main 496,906 visits) but 0*15 203.7 s
(1.10x: at a losing root the main search also enters other options for a while, and the
helper left its own options to follow it); following only an option the main search has
been in for 2 s: 0*16 246.5 s (1.66x), 0*15 165.6 s (1.36x). A helper needs to know which
of the two roots it is at, or to split its time between the two kinds of work.

News instead of asking again (2026-11-28, ops/jobs/parallel_misere.py; the same as normal play's
--jobs): every solver of a --jobs run tells the others the keys of the losing nodes it
stores, reads the store whole once and then only what it is told of. Before, each re-asked
the store about every key it had found missing, every second: a live py-spy profile of the
main search of the 0*20 --jobs 2 run had 12.6 % of its samples there. With nobody else
writing (one solver, sharing every second, fresh LMDB store, two at once, same visits):
0*14 38,658 store reads, 26.7 CPU s -> 0 reads, 24.4 CPU s (-8.6 %); 0*15 417,640 reads,
229.3 -> 227.3 CPU s (-0.9 %). Whole --jobs 2 runs (idle; wall s, main visits) vary more
than that from run to run: 0*15 before 113.3 and 148.9 (233,651 and 231,016), after 129.5
and 146.2 (244,512 and 263,619); 0*16 after 334.4 (646,777; before 407.0, 705,863), 1.22x
against --jobs 1.

Where a helper works, 2026-11-28 03:40-04:22 (idle: the record run stopped with SIGSTOP;
`solve 0*n --misere --jobs 2 --store NEW --json --quiet` under /usr/bin/time; --jobs 1 as
above: 0*15 225.2 s, 0*16 409.0 s; wall s, main visits; one run unless several are given):
  the helper from the root (df-pn on the root itself with busy marks, no held-back option,
  instead of its share of the far options): 0*16 352.3 (641,890, 1.16x), 0*15 166.8
  (350,799, 1.35x; far options: 113-149 s).
  the same, and at a node that looks winning the helper goes down the child the main
  search is in (df-pn's LeaderMarks) instead of its own likeliest: 0*16 289.2 (653,545,
  1.41x), 0*15 168.3 (402,707, 1.34x).
  far options as built, following everywhere: 0*16 298.4 (701,039, 1.37x); 0*15 167.4,
  191.2, 128.5 against 139.4 and 132.3 without following, paired (372,008 / 350,028 /
  254,130 against 291,608 / 243,774 visits).
So following pays at a winning root and not in the helper's own options at a losing one
(the main search's visits there are detours). Kept: a helper follows only in the main
search's kept option, once its share is proven (ops/jobs/busy_marks.py `HelperBusy`), which
is where a record run spends its last hours (0*20's 0*18.1a1a). At a winning root the
far options still leave the helper's work unused (0*16 1.0-1.4x in every variant but
following from the root); a division that is right at both kinds of root is not found.
As kept, paired at 0*15 (04:38-04:47): following in the kept option only 127.2 and 142.1 s
(312,474 / 329,063 visits) against 139.4 and 114.8 without (351,807 / 282,777): no
difference the spread of these runs can show. Normal play's --jobs, given the same rule in
the root child the main search is in, was no faster (bench/speedup_model.py).
The 0*20 run was restarted on this at 04:22 (run4 before it: +725,835 main visits, +2,905
stored, 1,710 user CPU s for both processes, 1:00:10 wall of which ~40 min stopped).
It ran to 05:50 (run5: 1:27:57 wall of which ~29 min stopped; Ctrl-C): main +3,879,769
visits, 6,827 user CPU s for both processes, peak RSS 4.3 GB; the main search made ~1,000-1,500
visits a second in its last 30 minutes against 400-800 before the restart (not attributed:
its place in the tree moves too). Still 10 of 11, 0*18.1a1a open: of its 69 options 3 were
proven winning and none losing at 05:05 (`settled_options` of 0*18.1a1a on the store,
read-only: 254 s beside the run). All runs: ~17.6 M main visits plus the helpers',
164,018 stored losing nodes, ~19,100 user CPU s (5.3 CPU hours).
Then run6 (05:51-05:54, the same command): **0*20 decided L**, as A164950 has it, after
+533,400 main visits, 203 s, 408 user CPU s for both processes, peak RSS 1.26 GB. solve said
that the answer rests on 164,018 store facts no check has verified (its own earlier runs' and
imported checkpoints): it is a claim until `bench/build_results.py --from DIR --misere 20`
has pruned and checked the certificate (started 06:01; not finished this session). All runs:
~18.1 M main visits plus the helpers', 167,729 stored losing nodes, ~19,500 user CPU s
(5.4 CPU hours). Checkpoint: misere-0x20.spdbx, 912 kB: the whole store, decided.
Its certificate, 2026-11-28 06:17-06:59 (`bench/build_results.py --from DIR --misere 20`,
one core, the 0*21 run on the other): the first check of the root on the solve's store
re-derived L; 4 random cycles kept 47,107 / 42,042 / 40,693 / 39,973 losing nodes, tightened
to 39,797 beyond S6 that a check of the file alone verifies, every one (misere-0x20.spdbx,
217 kB), in 1,695 CPU s and 1.75 GB peak. Then the file alone, imported into a fresh store,
`check --misere --root 0*20 --rct-table data/s6.rcttable`: L, clean, 39,797 of 39,797
verified, 26,364 lands replaced by RCTs of the re-derived table, 235 CPU s, 1.34 GB (the
0*21 run on the other core). Again after the checker kept the nodes it has shown winning
(solver/misere/check.py; the same proof), idle: 172.5 CPU s, 1.41 GB.
So 0*20 is a result here now, checked from the rules alone, not a claim. Proof sizes
beside the paper's Figure 10 (positions beyond S6, n ≤ 17 only): 0*18 41,581, 0*19
15,117, 0*20 39,797 losing nodes. The 2-hour goal: 5.4 CPU hours and about 3.6 h of
running wall time over six runs (run1 ~4,200 s on one core, run3-6 ~8,550 s with --jobs 2;
the stopped minutes estimated out), so missed by about 1.8x, not counting the 22.4 M visits
of the runs lost with the machine before them.

0*21 (conjectured L), 2026-11-28, the same store and resume record (/tmp kept):
  run3, 06:17-07:34, one core beside the certificate build and measurements, Ctrl-C:
        +5,153,270 visits, +36,279 stored losing nodes, 2,453 user CPU s, peak RSS 2.55 GB.
  run4, 07:34-08:39, `solve 0*21 --misere --jobs 2` (main from its record, helper afresh),
        stopped with SIGSTOP ~20 of its 64 minutes for measurements and the test run, Ctrl-C:
        main +5,051,653 visits, +49,081 stored by both, 4,364 user + system CPU s for both,
        peak RSS 3.16 GB; the main search made ~1,600 visits a second in its last 15 minutes.
  Still 0 of its 12 root options proven winning. All runs since the machine was wiped:
  ~15.1 M main visits plus the helper's, 109,469 stored losing nodes, ~9,460 user CPU s
  (2.6 CPU hours; 0*20 was decided after 5.4). Checkpoint: misere-0x21.spdbx, 590 kB.

The lever of 2026-11-28 (nineteenth session): start from the smaller proofs. 0*21's store
held none of 0*20's losing nodes: 56,694 of its 111,876 nodes were also among the 167,729
of 0*20's decided store (/tmp/r20), so the two trees share much, and one of 0*21's options,
0*20.AB|AB, moves to 0*20 (L). run5 (--jobs 2, 4 min, +533,351 visits, 0 of 12) was stopped,
0*20's whole store was imported (110,952 new nodes), and run6 (one core, 10 min) started
with that option settled before its first visit: the first of the 12 in ~16 M visits. The
library's certificates of 0*1..0*20 were then added (20,421 more), and run7 (--jobs 2)
went on. `solve --seed-results` (and `--seed-results` here) now does this from the
shipped library, each certificate re-derived from the rules first. Paired, from empty stores
(`solve 0*n --misere [--seed-results] --store NEW --json --quiet`, one core, beside the
0*21 run; visits are exact, CPU seconds loaded):
      n  fresh visits  seeded visits   fresh CPU s  seeded CPU s
     15       479,475        269,214         250.4          87.3  (-44 % visits)
     16       879,565        475,766         351.6         177.8  (-46 % visits, -49 % CPU)
and this script, `--from 12 --to 16 --cycles 1 --seed-results`, the same day and load
(fresh rows: the tables above):
      n  outcome A164950   wall s    CPU s     visits  stored L  proof L paper pos.  check
     12        W       W     24.8     12.4     41,774     1,116      458        983  clean
     13        L       L      5.6      2.8      7,585       118      271       1082  clean
     14        L       L     11.5      5.6     15,957       215      431       3517  clean
     15        L       L    141.4     93.2    269,214     4,517     2680       6906  clean
     16        W       W    249.1    165.2    475,766     6,907     2964       8981  clean
(peak RSS 150-407 MB; every proof re-derived clean from the stored nodes, seeded ones
included: 0*15's is 2,680 losing nodes against 2,958 fresh, 0*16's 2,964 against 3,769.)
The seeded runs' stored nodes are their own (4,517 at 0*15, 6,907 at 0*16, against 7,807
and 14,495). Normal play gains too: 0*12 8,162 visits against 25,451, and 0*21 746,243
against 1,640,936 (bench/solve.py).
0*18 seeded (the library's 0*1..0*17) with --jobs 2 on an idle machine, against its goal of
30 minutes: stopped undecided at 30:51 wall, 3,682 CPU s for both processes, 4,535,532
main visits, 51,646 losing nodes, 1.17 GB peak; 8 of its 10 options shown winning, open
0*12.AB|0*5.AB and 0*15.AB|0*2.AB (0*18 is W: one of them loses). Resumed 2026-11-28
12:40-13:15 (the same command, idle): decided W after 3,251,930 more main visits, 35:14
wall, 4,206 CPU s, 2.79 GB peak. Both runs: 66 min of wall time, 7.79 M main visits,
7,888 CPU s for both processes, against 3.0 h, 11.3 M visits and 9,657 CPU s fresh on one
core: 2.7x less wall, 18 % less CPU, and the 30-minute goal still missed by 2.2x.
0*19 seeded (the library's 0*1..0*18) with --jobs 2, idle, 2026-11-28 13:20, from an empty
store: decided L in 1:41 wall (seeding included), 297,598 main visits, 1,840 new losing
nodes, 194 CPU s, 460 MB peak, against 82 min, 5.16 M visits and 4,611 CPU s fresh: the
60-minute goal met with the library (the proof of 0*18 holds most of 0*19's); without it,
the chain is 0*18's 66 minutes first (and 0*17's ~10 CPU minutes before that). Its check
(`check --misere --root 0*19 --rct-table data/s6.rcttable --prune --cycles 2`): L, clean,
proof 22,876 then 20,012 losing nodes (the library's, from the fresh store: 15,117), in
200 CPU s and 737 MB.
0*20 seeded (the library's 0*1..0*19) with --jobs 2, 2026-11-28 13:29-14:55 from an empty
store, idle but for one pause (SIGSTOP of both processes, 741 s, for the test suite):
decided L (A164950) in 74 min of running wall time (1:26:44 elapsed), 7,746,133 main
visits, 51,528 new losing nodes, 8,892 CPU s for both processes, 1.65 GB peak, against
about 3.6 h of running wall time, ~18 M visits and 5.4 CPU hours over six runs fresh: the
2-hour goal met with the library. 10 of its 11 options were shown winning in the first
~28 minutes; the last took the other ~46. Its check (`check --misere --root 0*20
--rct-table data/s6.rcttable --prune --cycles 1`): L, clean, proof 52,695 losing nodes (the
library's, tightened over cycles from the fresh store: 39,797), 291 CPU s, 1.56 GB.
0*21, after the lever (the 0*20 store and the library imported; /tmp kept):
  run6, 09:43-09:53, one core: +1,242,791 visits, +8,328 stored, 587 CPU s; 1 of 12.
  run7, 09:53-11:45, --jobs 2 (stopped ~31 minutes by SIGSTOP for the 0*18 run above,
        sharing the cores with measurements the rest), Ctrl-C: main +6,359,059 visits,
        +28,915 stored, 7,400 user + system CPU s for both, peak RSS 4.39 GB; 1 of 12.
  run8, 12:00-12:23, --jobs 2, idle: main +2,275,833 visits, +11,587 stored, 2,783 CPU s
        for both, peak RSS 2.49 GB; 1 of 12.
  The store: 329,212 losing nodes (0*20's 167,729 and the library's certificates among
  them); checkpoint misere-0x21.spdbx, 1.8 MB, all of them. Since the wipe: ~25.5 M main
  visits, ~20,800 CPU s, and one option of 12 settled (by 0*20's proof, not by the search).

0*21 again, 2026-11-28, afternoon (same store and command):
  run9, 15:33-16:29, --jobs 1, one core beside measurements (stopped ~8 minutes by
        SIGSTOP), Ctrl-C: +3,358,531 visits, +12,132 stored, 1,799 user CPU s, peak RSS
        2.44 GB; 1 of 12.
  run10, 16:27-16:37, --jobs 2 (the larger land-moves memo below), idle, Ctrl-C: main
        +1,224,899 visits, +5,735 stored, 1,027 CPU s for both, 1.72 GB peak; 1 of 12.
  The store: 347,518 losing nodes; checkpoint misere-0x21.spdbx replaced (1.9 MB). Since
  the wipe: ~30.1 M main visits, ~23,600 CPU s, one option of 12 settled.

0*21 again, 2026-11-28, evening (same store and command):
  run11, 18:30-20:22, --jobs 1, one core beside the measurements below (stopped 57 minutes
        by SIGSTOP while 0*18 ran), Ctrl-C: +7,087,182 visits, +35,404 stored, 3,301 user
        CPU s, peak RSS 4.41 GB; 4 of 12: 0*10.AB|0*10.AB, 0*15.AB|0*5.AB and
        0*18.AB|0*2.AB proven winning in this run, beside 0*20.AB|AB.
  The store: 382,922 losing nodes; checkpoint misere-0x21.spdbx replaced (2.1 MB). Since
  the wipe: ~37.2 M main visits, ~26,900 CPU s, 4 options of 12 settled (3 by the search).
  run12, 20:39-21:11, --jobs 2, idle, Ctrl-C: main +2,234,598 visits, +3,320 stored by
        the main search, 3,856 CPU s for both, 3.37 GB peak; 4 of 12. Not in the checkpoint
        (the store in /tmp/r21 is ahead of it). Since the wipe: ~39.4 M main visits,
        ~30,800 CPU s.
  run13, 2026-11-28 21:29 - 11-29 00:05, --jobs 1 beside the normal-play work of that
        session (paused by SIGSTOP for its paired runs and tests), Ctrl-C: +5,742,656
        visits, +14,531 stored, 3,600 user CPU s, 4.51 GB peak; still 4 of 12. Not in
        the checkpoint. Since the wipe: ~45.1 M main visits, ~34,400 CPU s.
  The machine was wiped again before 2026-11-29: run12 and run13 (~7.98 M visits, ~7,460
  CPU s) were lost with /tmp/r21; the next run went on from the checkpoint of run11.
  run14, 2026-11-29 00:57-02:52, `sproutsdb import` of the checkpoint into a new store,
        then `sproutsdb solve 0*21 --misere --seed-results --jobs 1 --store DIR --json`, one
        core beside this session's work (stopped ~50 minutes by SIGSTOP for its paired
        runs), Ctrl-C: +4,209,414 visits, +5,054 stored, 2,872 user CPU s, 1.72 GB peak;
        5 of 12: 0*16.AB|0*4.AB proven winning in this run. The store: 387,976 losing
        nodes; checkpoint misere-0x21.spdbx replaced (2.1 MB). Counting only what reached
        a checkpoint: ~41.4 M main visits, ~29,800 CPU s since the wipe of 2026-11-27.
  run15 and run16, 2026-11-29 03:39-05:26, the same machine (its /tmp kept): the same solve
        command on run14's store, resumed from its resume record; run15 with the code of
        the morning, run16 (from 04:15) with the per-child work in C (below), each on one
        core beside this session's work and stopped by SIGSTOP for its paired runs and the
        0*18 run (about 75 minutes in all), Ctrl-C: +902,277 and +1,640,768 visits, +984
        and +1,988 stored, 704 and 1,102 user CPU s, 2.08 and 2.84 GB peak (run16 took up
        run15's resume record). Still 5 of 12, the same five. The store: 390,948 losing
        nodes; checkpoint replaced (2.1 MB).
  run17, 2026-11-29 05:46-06:15, the same command with --jobs 2 on the idle machine (after
        this session's tests), Ctrl-C: +4,075,609 main visits, 7,917 stored by the main
        search and 20,615 new losing nodes in the store in all, 3,529 user CPU s for both
        processes in 29:42 wall, 3.53 GB peak. Still the same 5 of 12. The store: 411,563
        losing nodes; checkpoint replaced (2.2 MB). Since the wipe of 2026-11-27, counting
        what reached a checkpoint: ~48.1 M main visits, ~35,100 CPU s.
  run18, 2026-11-29 06:52-09:24, the same command with --jobs 1 (started before this
        session's changes, so on the code before them; stopped by SIGSTOP for about 95 of
        its 154 minutes: paired measurements, the 0*18 run below and the tests), Ctrl-C:
        +3,964,130 visits, +6,875 stored losing nodes, 2,687 user CPU s, 4.11 GB peak.
        Still the same 5 of 12. The store: 418,438 losing nodes; checkpoint replaced
        (2.3 MB). Since the wipe: ~52.1 M main visits, ~37,800 CPU s.
  run19, 2026-11-29 09:41-11:55, the same command with --jobs 1 (the code of the session
        before: its core was loaded before this session's changes), beside measurements
        on the other core, stopped by SIGSTOP for the 13-minute test run, Ctrl-C: +12,417,397
        visits, +32,687 stored losing nodes, 5,978 user CPU s, 6.38 GB peak. Still the same
        5 of 12. The store: 451,125 losing nodes; checkpoint replaced (2.5 MB). Since the
        wipe: ~64.5 M main visits, ~43,800 CPU s.
  run20, 2026-11-29 12:24-12:57, the same command with --jobs 1 on this session's code,
        beside a normal 0*21 solve and then stopped by SIGSTOP for 16 minutes of paired
        measurements (bench/solve.py), Ctrl-C: +2,054,013 visits, +720 stored losing nodes,
        979 user CPU s, 2.75 GB peak. Still the same 5 of 12. The store: 451,845 losing
        nodes; the checkpoint was not replaced for 720 nodes. Since the wipe: ~66.6 M main
        visits, ~44,800 CPU s. Then stopped for the session's normal 0*27 (bench/solve.py).

Where 0*18's seeded time goes (2026-11-28, afternoon). Its losing option alone, `solve
0*15.AB|0*2.AB --misere --seed-results` (the library's 0*1..0*17), --jobs 1 beside two
other processes: stopped undecided after 4,077,145 visits, 53,740 stored losing nodes,
2,096 user CPU s, 892 MB peak, with 8 of its 30 options shown winning. The whole root
took 7.79 M main visits: the work is in showing every child of that one option winning,
not in the root's choice between its last two options.
Move order, read off the library's 0*17 certificate (bench/move_order.py: every distinct
winning node of its proof tree, the rank in the search's order of its first child the
certificate holds losing): 88,033 winning nodes, the first child in 64.3 % of them, mean
rank 1.99. Other orders of the same sizes: normal-play nim flag first 60.2 % / 3.22;
lives, height, -lands 47.2 % / 2.28; lives + height 48.1 % / 1.71 (lower mean rank, fewer
first hits). At 0*14 (5,164 nodes): the search's 63.2 % / 1.76, lives + height 64.6 % /
1.44. lives + height is the one candidate the measure leaves open; not tried in the search
(the measure leans toward the order that made the certificate).
Weak proof numbers (δ of a node that looks losing = its largest child φ + the other open
children, instead of their sum), tried in df-pn, not kept; visits, in-memory store, sum ->
weak: 0*10 2,646 -> 2,060; 0*11 1,549 -> 1,101; 0*12 44,908 -> 45,325; 0*13 17,380 ->
27,441; 0*14 46,306 -> 175,354.
A root of 54 lives or more memoises the moves of 2^17 lands instead of 2^15 (solver/misere/
solver.py MISERE_LARGE_CHILDREN_CACHE): the first 10^6 visits of 0*15.AB|0*2.AB (its memo
of canonical forms at 2^21, as 0*18's), paired on an idle machine, in-process on an
in-memory store: 261,572 -> 179,696 calls of the C core's children of a land, 341.7 ->
324.5 CPU s (-5.0 %), 627 -> 895 MB peak (2^18: 175,569 calls). The lands it saves are
cheap ones: the core's time is in lands met for the first time. (Tried on 0*18.1a1a on
2026-11-27 with fewer visits: +1.8 % visits a second.)
0*18 seeded with --jobs 2 again, with it, 2026-11-28 16:54-17:54, from an empty store, in
one run, idle but for about 3 CPU minutes of a test file and an export beside it: decided
W (A164950) in 60:09 wall (59:56 of search), 7,399,391 main visits, 86,607 stored losing
nodes, 7,172 CPU s for both processes, 1.83 GB peak. Main visits at 10 / 20 / 30 minutes:
1,898,983 / 3,399,477 / 4,535,821, against 1,758,147 / 3,145,130 / 4,447,711 in the first
of the two runs before (+8 / +8 / +2 %). Against the 66 minutes of those two runs (7.79 M
main visits, 7,888 CPU s; the second took up a resume record): -9 % wall, -9 % CPU. The
30-minute goal is still missed, by 2.0x. Its check (`check --misere --root 0*18
--rct-table data/s6.rcttable --prune OUT --cycles 1`): W, clean, proof 49,095 losing nodes
(the library's certificate: 41,581), 236 CPU s, 1.51 GB.
lives + height in the search (2026-11-28, evening), tried and not kept. Visits (CPU s) to
decide 0*n in-process on an in-memory store, one core beside a --jobs 1 solve on the other;
the search's order as built against children sorted by lives + RCT height, then -lands,
then the nim flag, with δ = 1 + (lives + height) // 2 + RCTs:
  0*10 2,646 -> 2,017; 0*11 1,549 -> 1,237; 0*12 44,908 -> 31,870; 0*13 17,380 -> 17,133;
  0*14 46,306 -> 45,861; 0*15 479,475 (172.5 s) -> 392,916 (160.9 s);
  0*16 879,565 (359.3 s) -> 891,067 (397.9 s); 0*17 1,608,717 (431.5 s) -> 1,617,828 (462.2 s).
Fewer visits up to 0*15, then +1.3 / +0.6 % visits and +11 / +7 % CPU at 0*16 / 0*17 (its
children cost more a visit); the sizes 0*18 and up depend on are those where it loses. The
order alone, δ still from lives: 0*13 23,322, 0*14 49,474 (worse); δ from lives + height with
the order as built: 0*12 31,143, 0*13 21,370, 0*14 48,144. The certificate's mean rank
(bench/move_order.py) did not predict the search's visits. The divisor of lives in δ
(2, tuned on 0*13 and 0*14) was tried again at larger n: 3 gives 0*14 56,272, 0*15 598,558
(+25 %); 1 gives 0*14 85,922. 2 stays.
Since 2026-11-28 evening a root of 53 lives (0*18's options) takes the large memos too: a
--jobs helper's root is such an option, and the figures above were measured on one.
0*18 seeded with --jobs 2 with it, 2026-11-28 19:19-20:12, from an empty store, in one run,
idle (the 0*21 solve stopped by SIGSTOP): W (A164950) in 53:37 wall (53:20 of search),
6,323,431 main visits, 73,054 stored losing nodes, 6,393 CPU s for both processes, 1.71 GB
peak. Against the run before (60:09, 7,399,391 visits, 7,172 CPU s): -11 % wall, -11 % CPU,
-15 % main visits. One run each, so how much is the change and how much df-pn's path is
not separated (the run before was 2-8 % ahead of the one before it at equal times). Its
main search made fewer visits a second (1,977 against 2,058) and needed fewer.
The 30-minute goal is missed by 1.79x. Its check (the command above, beside a --jobs 1
solve): W, clean, proof 46,369 losing nodes, 266 CPU s, 1.23 GB.

2026-11-29 (a new machine; /tmp wiped, so 0*21 went on from the checkpoint). Where a record
run's CPU goes now: py-spy (--native, 40 s) of the 0*21 run at ~2 M visits, of its
non-idle samples: MisereSolver._sized_children 15 % in its own Python lines, df-pn's _mid
12 %, _expand 9 % (and 5 % in its list), _known 6 %, _land_moves 3 %; the C core's
children of lands 24 % (encode_land 15 %). So the per-child loops in Python, not the core,
are the next lever for 0*18's 30 minutes: assembling each child's key and order
(`_sized_children`), sorting them, and df-pn's pass over them.
The C core's two canonical-search changes of this day (bench/solve.py) on misère lands:
every 3rd land of misère 0*14's core calls (5,403 lands), valgrind: 18.67 -> 17.88 G
instructions (-4.2 %), the same children (sha256). Paired CLI runs of `solve 0*14
--misere` (both at once, 6 pairs, the 0*21 run stopped) did not show it: 166.5 s summed
before, 172.3 after, pair differences from -0.7 to +3.9 s on runs of 23-33 s (this VM's
spread between consecutive runs is larger than the change).
Tried the same day, not kept: `_sized_children` returning at the first child already known
losing (statically or in the table). At 0*14, 15,036 of 37,547 expansions (40 %) had one
(early in move order: at place 1.25 on average, counting from 0), but in the order children are
assembled it came late, so only 29 % fewer children were assembled (757,557 against
1,073,098), and every child of the other 60 % paid a lookup: paired, both at once, 27.7 /
28.6 user CPU s against 27.0 / 25.8 as built (same 46,306 visits and 861 stored nodes).

2026-11-29, later: the per-child work of an expansion in C. solver/misere/_assemble.c
holds two compiled twins of Python definitions in solver/misere/assemble.py:
assemble_land_moves (every child a node gets from the folded moves of one land: its lands,
parity, RCTs, key and move order, which was _sized_children's inner loop) and
order_children (_expand's sort of the children by (size, key) and their initial proof
numbers, now one qsort on unpacked sizes instead of comparing tuples of tuples). The
Python definitions stay the fallback (no C compiler, or SPROUTSDB_PURE_PYTHON=1) and the
reference: tests/test_misere_assemble.py compares the two on every call of misère 0*9 and
0*10 searches (with the S4 table, so moves carry RCTs and parity flips) and on random
input (unsorted lands, tied and non-ASCII content ids, keys already present).
Paired, the Python definitions against the compiled ones in the same build (in-process
switch, both runs at once, the 0*21 run stopped), `solve 0*n --misere --jobs 1 --store
NEW`, user CPU s, visits and stored nodes equal in each pair:
  the assembler alone: 0*14 three pairs 32.3 / 23.6 / 25.7 against 28.4 / 23.8 / 28.9
    (81.5 against 81.0 summed: inside this VM's spread); 0*16 340.0 -> 324.8 (-4.5 %).
  both: 0*15 L, 479,475 visits, 7,807 stored: 206.0 -> 194.4 (-5.6 %), 374 -> 388 MB peak;
    0*16 W, 879,565 visits, 14,495 stored: 382.7 -> 356.5 (-6.9 %), 426 -> 430 MB peak.
Profile of 0*15 after (py-spy, 90 s): the C core's children of new lands 39 % of samples,
df-pn's _mid 9.8 %, _sized_children 11.0 % (5.0 % the assembler's call, the rest its RCT
moves), _expand 7.5 % (2.8 % the compiled order, 3.6 % dropping the children list the LRU
evicts), _known 3.7 %. What is left in Python is df-pn's pass over the children and the
moves inside RCTs, each a few per cent.
0*18 seeded with --jobs 2 again, with it, 2026-11-29 04:15-05:05, from an empty store, in
one run, idle (the 0*21 solve stopped by SIGSTOP): W (A164950) in 49:26 wall (49:11 of
search), 6,896,828 main visits, 80,598 stored losing nodes, 5,863 user CPU s for both
processes, 1.76 GB peak. Main visits at 10 / 20 / 30 / 40 minutes: 1,795,626 / 3,251,764
/ 4,536,753 / 5,893,482. Against the run before (53:37, 6,323,431 visits, 6,393 CPU s):
-7.8 % wall, -8.3 % CPU with 9 % more main visits (df-pn's path differs between --jobs 2
runs), 0.85 CPU ms a main visit against 1.01. The 30-minute goal is missed by 1.65x.

2026-11-29 (twenty-fifth session): df-pn's pass over a node's children in C. After every
descent df-pn reads every remaining child's numbers again (solver/search/dfpn.py, now
scan_children); in a 0*21 profile that pass (_mid, _known, _decided) was ~15 % of the
samples, the largest Python loop left. A space may now bring its own pass: the misère
search's is a third twin in _assemble.c, which reads a child with lands straight from the
table of proven nodes (what _decided answers for it unless its key is a resume record's
claim) and calls _decided for the others. tests/test_misere_assemble.py compares it with
the Python pass on every scan of misère 0*9 and 0*10 (S4 table) and on random children,
tables, claims and numbers (by key or by hash). Paired, Python pass against the compiled
one (in-process switch, both at once, the 0*21 run stopped), `solve 0*n --misere --jobs 1
--store NEW`, user CPU s, visits and stored nodes equal in each pair:
  0*15 L, 479,475 visits, 7,807 stored: 222.5 -> 195.0 (-12.4 %), 388 MB both;
  0*16 W, 879,565 visits, 14,495 stored: 394.4 -> 353.7 (-10.3 %), 428 -> 429 MB.
Normal play keeps the Python pass, now a function call per pass instead of a loop inside
_mid: 0*12 normal in-process, cachegrind, 28.842 -> 28.970 G instructions (+0.44 %; the
CPU seconds of four paired 0*14 runs, 166.5 against 177.2 summed, were inside this VM's
spread, pair differences -1.0 to +6.2 s).
The same day, the moves inside RCTs: _sized_children folded every option of every RCT of
a node again at each expansion, in Python. Each RCT's options are now folded once per
search (_rct_moves) into the form a land's moves take (no kept land, no lives) and the
compiled assembler builds those children too. Misère 0*13 in-process (S6, memory store),
cachegrind: 28.864 -> 28.030 G instructions (-2.9 %), 17,380 visits both; 0*15 paired
through the CLI, 195.2 -> 193.8 user CPU s (inside this VM's spread). Profile of 0*15
after both (py-spy, 120 s): the C core's children of new lands 43 %, the compiled pass
6.5 % (its time is the table's lookups), _sized_children 8.7 % (the compiled assembler
4.7 %), _expand 7.7 % (3.9 % freeing the children list the LRU evicts, 2.9 % the
compiled order), _land_moves 3.8 %, df-pn's _mid 2.6 %.
0*18 seeded with --jobs 2 with both, 2026-11-29 08:08-09:00, from an empty store, in one
run, idle (the 0*21 solve stopped by SIGSTOP; one 14 s test file beside it): W (A164950)
in 51:28 wall (51:15 of search), 7,409,832 main visits, 85,201 stored losing nodes, 6,108
user CPU s for both processes, 1.87 GB peak. Main visits at 8 / 17 / 24 / 33 / 40 / 45
minutes: 1,686,999 / 3,088,721 / 4,069,737 / 5,272,681 / 6,244,213 / 6,846,635. Against
the run before (49:26, 6,896,828 visits, 5,863 CPU s): 0.82 CPU ms a main visit against
0.85 (-3 %), but df-pn's path took 7.4 % more main visits, so the wall time is 4 % longer.
The per-visit gain is a third of the paired -10 to -12 % at 0*15 and 0*16 (one core):
0*18's larger lands put more of a visit in the C core, and the helper's CPU counts here
too. The 30-minute goal is missed by 1.72x in this run (1.65x in the one before).

2026-11-29 (twenty-sixth session): where the C core's time goes at 0*21. A live py-spy
profile of run19 (below; 60 s at ~3 M visits in, --native): the core's children of lands
51 % of the samples, 31.5 % in canonical searches of lands the memo did not hold
(encode_land), tidy_land 7.7 %, normalize 5.0 %. An instrumented core (scratch build:
counters and a set of every key and string met) on 0*21 from the checkpoint (a fresh
resume, 15 minutes, 1,248,456 visits, beside three other processes) made 6,213,446
canonical searches for 4,235,958 distinct strings, 3.4 new ones a visit: 173.7 s of
searches for new strings (41 us each), 45.4 s for keys the memo (2^21) had held and
dropped (1,296,418), 21.1 s for lands met before under another key (681,070). A canonical
form met for the first time is what a visit costs most; the memo's size and keys are the
smaller part. Lands met under another key were mostly one region in its other view, which
the memo's key now writes the lesser way (bench/solve.py, 2026-11-29): misère 0*13, 91,947
-> 83,474 canonical searches, cachegrind (in-process, S6, memory store) 28.041 -> 27.248 G
instructions (-2.8 %), 17,380 visits both; 0*15 (in-process, memo 2^16, 479,475 visits
both) 2,997,277 -> 2,832,106 searches (-5.5 %; under another key 318,964 -> 168,868), of
1,534,965 distinct strings. There the searches of keys the 2^16 memo had dropped were 25 s
of ~181 s (a root under 53 lives keeps the default memo, for 0*17's 500 MB).

2026-12-01 (twenty-ninth session), a new machine of this kind, idle, the misère code of
2026-11-29 (nothing changed in it since): `sproutsdb solve 0*18 --misere --seed-results
--jobs 2 --store NEW --json` under /usr/bin/time, from an empty store, the library's
certificates re-derived just before by `results --check` (so seeding read cached marks):
W (A164950) in **29:30 wall** (1,769.9 s, 1,757.8 s of it the solve), 6,883,956 main
visits, 81,720 stored losing nodes, 3,500.6 CPU s for both processes (user + system),
1.64 GB peak. 8 of the 10 root options were shown winning in the first 68 s; the rest went
to the last two (0*12.AB|0*5.AB and 0*15.AB|0*2.AB), as on 2026-11-28. The 30-minute goal
is met on this machine, by 30 s; the lever is the machine: against the run of 2026-11-29
(49:26, 6,896,828 main visits, 5,863 CPU s), the same visits took 0.51 CPU ms each
instead of 0.85 (0*14 in normal play: 22.9 s here, 33-34 s there). On the slower machines of
this kind the goal stays missed by ~1.65x. Its check, `check --misere --root 0*18
--rct-table data/s6.rcttable --json` on the solve's store, alone: W, clean, 48,964 losing
nodes used and verified (26,232 lands replaced by RCTs of the re-derived table), 141.4 CPU
s, 1.45 GB peak. A py-spy sample of the main process (60 s at ~5 minutes in, 50 Hz): the C
core's children of lands 37.5 %, the compiled df-pn pass 12.4 %, freeing the children lists
the node LRU evicts 7.9 %, the compiled assembler 9.7 % (land and RCT moves), the compiled
order 3.2 %, store reads and resume records ~2 %: no single part above the core's.

0*21 again, 2026-12-01 (same machine; the checkpoint of 2026-11-29 imported into a new store,
451,125 nodes in 5.9 s):
  run21, 21:39-22:03, `sproutsdb solve 0*21 --misere --seed-results --jobs 2 --store DIR
        --json`, idle, Ctrl-C: 4,640,635 main visits, 23:35 wall, 2,614 CPU s for both,
        1.66 GB peak; 7 of 12: 0*19.AB|0.AB (by 0*18.A|0.A, L) and 0*17.AB|0*3.AB (by
        0*17 *1 + an RCT, L) proven winning in this run.
  Then the replies one at a time, by analogy with 0*20's certificate. That proof's winning
  reply to each option of 0*20 (read from the library's certificate: the option's children
  it holds losing) is, for 0*18.AB|0.AB, 0*17.A|0.A; for 0*18.1a1a, 0*17.A|0.1aAa; for
  0*12.AB|0*7.AB, 0*12+0*4.A|0*3.A; for 0*11.AB|0*8.AB, 0*11+0*4.A|0*4.A; for
  0*13.AB|0*6.AB, 0*9.A|0*4.A + the RCT b62d4d09 (of 0*6); for 0*10.AB|0*9.AB,
  0*6.A|0*4.A+0*9. The same reply with one more spot on the larger side is a child of the
  matching option of 0*21 in every case, and run21's proof of 0*19.AB|0.AB had found one
  of them (0*18.A|0.A). Solving such a reply as a root, `sproutsdb solve REPLY --misere
  --seed-results --jobs 2 --store DIR` on the 0*21 store, searches only what that option
  needs if the guess is right (a wrong guess is proven winning, and costs its time only):
  0*18.A|0.1aAa (for 0*19.1a1a), 22:04-23:06 in two runs (the first stopped at 20 minutes
        with 28 of its 29 options shown winning; the second resumed it): L, 8,409,221
        main visits in all, 39:08 wall, 4,534 CPU s for both, 3.79 GB peak. So 0*19.1a1a
        wins: 8 of 12. Checkpoint replaced (526,763 nodes, 2.9 MB).
  0*7.A|0*4.A+0*9 (a guessed reply for 0*11.AB|0*9.AB), after that checkpoint: proven
        winning (the guess was wrong), 7,274,671 main visits, 13:50 wall, 1,633 CPU s, 2.07 GB
        peak.
  run22, 23:25-23:46, the 0*21 solve again on that store: L, decided (the first time),
        7,582,834 main visits, 20:38 wall, 2,440 CPU s for both, 2.90 GB peak; the winning
        replies its store holds: 0*11.AB|0*9.AB -> 0*11+0*8.A|0.A, 0*14.AB|0*6.AB ->
        0*14+0*3.A|0*3.A, 0*10.AB|0*10.AB -> 0*10+0*5.A|0*5.A, 0*18.AB|0*2.AB -> 0*18 *1,
        0*20.AB|AB -> 0*20. Its check had re-derived 153,712 facts in 10 minutes when that
        machine was wiped (a restart), so the store and the result were lost.
A reply solved this way is a claim like any stored node: the outcome of 0*21 rests on the
certificate its check re-derives from the rules alone.

0*21 again, 2026-12-02 (a new machine; the checkpoint of 2026-12-01 23:09, 526,763 nodes,
so without the nodes of the wrong guess and of run22, imported into a new store in 13.9 s),
one run, idle: `sproutsdb solve 0*21 --misere --seed-results --jobs 2 --store DIR --json`,
02:45-03:19: L again, 4,934,709 main visits, 34:12 wall (the first 10:20 the seeding of the
library's misère 0*1..0*20, re-derived on this new install: 0*18 226 s, 0*19 77 s, 0*20
206 s), 3,438 CPU s for both, 1.70 GB peak, 14,008 nodes stored by this run (557,815 in the
store). Options settled: 8 at the start, 9 at 5:30 of search, 10 at 7:21, 11 at 21:14, the
last (so the root lost) at 23:51.

2026-12-02, later (the same machine; the rows dated 12-02 in the table at the top), two runs
at a time on the two cores, each under /usr/bin/time -v:
  0*21 --jobs 1: the same checkpoint file (from git, 4f28b66) imported into a new store
        (11.9 s), then `sproutsdb solve 0*21 --misere --seed-results --jobs 1 --store DIR
        --json` beside the S7 build: L, 8,419,975 visits, 41:13 wall (2,459.6 s of search;
        seeding read cached marks, 5 s), 2,454 CPU s, 2.02 GB peak, 29,951 stored. Options
        settled: 9 at 248 s, 10 at 1,927 s, 11 at 2,441 s, the root at 2,460 s (--jobs 2:
        330, 441, 1,274, 1,431 s of search). So --jobs 2 is 1.72x on the search's wall time
        for ~15 % more CPU (~2,820 against 2,454 s); which options the helper settled was
        not read off.
  S7 rebuilt: `rct-table build 0*7`, 3,218,358 positions, 598,685 RCTs, 47,997,222 bytes
        (as 2026-11-27), 1,197 CPU s, 20:09 wall, 5.05 GB peak; its first use wrote the
        index and snapshot in seconds (the build left its verified mark).
  0*18 on S7, `solve 0*18 --misere --rct-table s7.rcttable --jobs 1 --store NEW --json`,
        fresh: W (A164950), 8,720,653 visits, 113,584 stored, 4,404 s wall, 4,376 CPU s,
        3.29 GB peak; 5 of 10 options shown winning in the first 285 s, then the losing
        one. Its check, `check --misere --root 0*18 --rct-table s7.rcttable --json` on
        that store beside the test suite: W, clean, 38,574 losing nodes used and verified
        (49,064 lands replaced by RCTs of the re-derived S7), 221 CPU s, 2.29 GB peak
        (S6's check of the 12-01 seeded store: 48,964 nodes; the library's 0*18: 41,581).
  0*19 and 0*18 seeded on S6, `--jobs 1`, beside it: 0*19 L, 593,703 visits, 2:23 wall
        (135.7 s of search), 142 CPU s, 702 MB; 0*18 W, 8,305,326 visits, 53:21 wall,
        3,168 CPU s, 1.98 GB, 107,626 stored (8 of 10 options in 856 s, the rest in the
        last 39 minutes, as in the 0*18 runs above). 0.38 CPU ms a visit here against
        S7's 0.50, not attributed (the two ran side by side on different trees).

2026-12-02, evening (a new machine: /tmp and the cache empty; the rows marked n), two runs at
a time on the two cores, each under /usr/bin/time -v, from 15:12:
  0*20 seeded on S6, `solve 0*20 --misere --seed-results --jobs 1 --store NEW --json`,
        beside the S7 build and then the S7 runs: L, 12,276,626 visits, 3,568 s of search
        (59:28; 1:03:17 in all, the seeding re-deriving 0*18 in 122 s and 0*19 in 44 s),
        3,762 CPU s, 2.22 GB peak, 108,935 stored. Options settled (of 11, s of search):
        3 at 9, 6 at 573, 8 at 796, 10 at 1,250, the last (so the root lost) at 3,568.
        Its check, `check --misere --root 0*20 --prune DIR --cycles 1`: L, clean, 53,588
        losing nodes used and verified, 189 CPU s, 1.70 GB. Against the 11-28 --jobs 2 row
        (older code: before the compiled assembler and pass): 0.80x its wall, 0.42x its CPU.
  S7 rebuilt: `rct-table build 0*7`, 3,218,358 positions, 598,685 RCTs, 47,997,221 bytes,
        754 CPU s, 12:37 wall, 5.05 GB peak (this machine is faster than the last: 1,197
        CPU s there, beside another run).
  0*12 on S7 fresh, `solve 0*12 --misere --rct-table s7.rcttable --jobs 1 --store NEW`:
        W, 30,960 visits (S6: 44,908), 773 stored, 6.3 s of search, 15.6 CPU s with the
        table's opening from its index, 1.30 GB; `check --misere --prune --cycles 3`: clean,
        cycles 435, 415, 411 (S6: 452), 34 CPU s.
  0*19 on S7 seeded, --jobs 1: L, 558,547 visits (S6 seeded: 593,703), 4,805 stored,
        112.7 s of search, 123 CPU s, 1.82 GB (S6: 142 CPU s, 702 MB).
  0*21 on S7 from the 12-01 23:09 checkpoint (imported in 7.1 s; its 526,763 nodes are
        keyed by S6's reductions), seeded, --jobs 1: L, 13,965,562 visits (S6 from the same
        file: 8,419,975), 98,863 stored, 2,720.5 s of search, 2,841 CPU s (138 s of them
        re-deriving 0*20's certificate), 3.46 GB. Options: 9 at 1,868 s, 10 at 2,360, 11 at
        2,493, the root at 2,720 (S6: 248, 1,927, 2,441, 2,460). Its store was not checked.
  Finding, not fixed: a store seeded on one table and searched on another does not check.
        `check --misere --root 0*19 --rct-table s7.rcttable` of the seeded S7 store: not
        clean, 18,018 facts verified, 2,060 unproven, 2,071 nodes with missing children (86
        CPU s). Found again in 20 s at 0*14 (seeded on S7: not clean with S7, 30 unproven,
        nor with S6, 26) and in seconds with an S5 table (`rct-table build 0*5`, then
        `solve 0*9 --misere --seed-results --rct-table s5` and `check ... --rct-table s5`:
        not clean, 6 unproven; 0*10 too; 0*9 fresh on S5 checks clean, as every fresh S7
        store did). The missing children are lands that the seeded certificates' table (S6)
        reduces to RCTs and the check's table does not, or the other way; so the search
        reached facts that no single table's check can reach. Not yet read: how the S5/S7
        search found those facts (the store's RCT records that seeding brought, perhaps),
        and so whether `--seed-results` with another table should re-key, refuse or warn.
        The S7 rows marked x are outcomes, not proofs, until it is settled.

2026-12-02, night (the same machine), from 18:53:
  The finding read: no RCT records are involved (the S5 repro's store holds none). Seeding
        put the certificates' losing nodes, e.g. 0*4.A.B|1aAa|1aBa and 0*6.A|0.A (of 0*7
        and 0*8), whose keys are the same string on S5 and S6; the S5 search read them as
        proven (a store's facts are), so its outcome is right. But their proofs run through
        children such as 0*3.12.A|1aAa, which S6 reduces to an RCT and S5 does not, so a
        check on S5 asks for losing nodes keyed by S5 that nobody stored: the 6 holes are
        exactly those. Not a false fact, a proof that needs both tables. Settled as: refuse
        (`--seed-results` with `--rct-table` of another table, or `--no-rct-table`: exit 2,
        nothing stored) and warn (a misère solve on a table file names it in the store's
        provenance, the shipped S6 too, and warns when the store's facts name another or
        hold the library's certificates). Re-keying was not tried: a node re-keyed on S7 is
        the same position, but the proofs of its children would have to be found again.
        tests/test_cli_solve.py shows the hole on S4 at 0*8 (and the clean control).
  S7 rebuilt: 3,218,358 positions, 598,685 RCTs, 47,997,222 bytes, 1,155 CPU s, 19:17 wall
        beside the test runs, 5.05 GB peak.
  0*19 on S7 fresh, `solve 0*19 --misere --rct-table s7.rcttable --jobs 2 --store NEW
        --json`, alone on the two cores: L, 1,907,029 main visits, 19,548 stored, 683 s of
        search, 11:39 wall, 1,377 CPU s, 2.34 GB peak. Root options settled (of 11): 4 by
        ~280 s, 10 before the last. Its check, `check --misere --root 0*19 --rct-table
        s7.rcttable --prune DIR --cycles 1`: L, clean, 13,446 losing nodes (S6's library
        certificate: 15,117), 99 CPU s, 2.24 GB. Against S6 fresh --jobs 1 (11-27, 3 runs,
        older code): 0.30x its CPU, 0.37x its visits; against the 60-minute goal: 0.19x.

2026-12-04 (a new machine: /tmp and the cache empty), each run under /usr/bin/time -v:
  S7 rebuilt: `rct-table build 0*7`, 3,218,358 positions, 598,685 RCTs, 47,997,221 bytes,
        824 CPU s, 14:43 wall, 5.05 GB peak (the test suite on the other core).
  0*20 on S7 fresh, `solve 0*20 --misere --rct-table s7.rcttable --jobs 2 --store NEW
        --json`, alone on the two cores, 04:40-05:31: L (A164950), 8,121,972 main visits,
        71,045 stored, 3,035 s of search, 50:51 wall, 6,035 CPU s for both, 3.31 GB peak.
        Root options settled (of 11, s of search): 1 at 789, 4 at 1,264, 7 at 2,245, 10 at
        2,415, the last (so the root lost) at 3,035. Its check, `check --misere --root 0*20
        --rct-table s7.rcttable --prune DIR --cycles 1`: L, clean, 42,934 losing nodes used
        and verified (52,967 lands replaced by RCTs of the re-derived S7), 216 CPU s, 4:20
        wall, 2.81 GB (S6: the library's 39,797; the 12-02 seeded store's check 53,588).
        The pruned proof exported (bench/checkpoints/misere-0x20-s7.spdbx, 267,771 bytes,
        6.2 bytes a node), imported alone into a fresh store and checked again with S7:
        clean, 42,934 verified, 0 unproven, 170 CPU s, 2.62 GB. Against S6 fresh (11-27..28,
        six runs, ~13,000 s wall, ~19,500 CPU s, ~18.1 M visits, older code): 0.23x its
        wall, 0.31x its CPU, 0.45x its visits; against S6 seeded --jobs 1 (12-02, 3,568 s):
        0.85x its wall for 1.6x its CPU; against the 2-hour goal: 0.42x. Fresh S7 is now the
        cheapest way found here to a checked 0*20 from nothing, at 1.5x S6's memory.
  0*20's check and the check of its exported proof ran beside ~6 of the first 10 minutes of:
  0*18 on S7 fresh, `solve 0*18 --misere --rct-table s7.rcttable --jobs 2 --store NEW
        --json`, 05:37-06:18: W (A164950), 7,158,172 main visits, 87,101 stored, 2,444 s of
        search, 41:01 wall, 4,599 CPU s for both, 3.23 GB peak. Root options shown winning
        (of 10, s of search): 4 at 155, 8 at 406, then the losing one (so the root won) at
        2,444. Its check, `check --misere --root 0*18 --rct-table s7.rcttable --prune DIR
        --cycles 1`: W, clean, 44,580 losing nodes used and verified, 172 CPU s, 2.76 GB.
        Against S7 --jobs 1 fresh (12-02): 0.55x its wall (1.80x sooner) for 1.05x its CPU;
        against the 30-minute goal: 1.36x, missed (S6 seeded --jobs 2, 12-01, on a faster
        machine: 29:30).
  0*12-0*17 on S7 --jobs 2, `python bench/misere.py --table s7.rcttable --jobs 2 --from 12
        --to 17 --cycles 1`, alone, 06:36-06:46 (table opened from its index in 3.6-6.7 s):
        every outcome as A164950 and every check clean; wall s of search 10.0 / 4.5 / 15.3 /
        58.9 / 143.6 / 143.5, CPU s of both processes 18.3 / 6.8 / 28.5 / 114.4 / 280.0 /
        282.6, main visits 40,522 / 12,069 / 53,204 / 243,445 / 599,427 / 688,389, pruned
        proofs 587 / 172 / 422 / 2,234 / 3,596 / 7,566, peak 1.2-1.6 GB. The S7 --jobs 1 rows
        (11-27) are on older code, beside other runs and loading trees one by one, so their
        wall s do not compare; S6 on the 11-28 code at 0*15-0*17: --jobs 1 225 / 409 / 478 s,
        --jobs 2 113 / 407 / 435 s. Not paired: the ratio mixes base, code and machine.

2026-12-04 afternoon (a new machine instance; /tmp and the cache empty), each run alone on
the two cores under /usr/bin/time -v:
  S7 rebuilt: `rct-table build 0*7`, the same 3,218,358 positions and 598,685 RCTs,
        47,997,221 bytes, 588 CPU s, 9:51 wall, 5.05 GB peak; copied into the cache as the
        named table (`--rct-table s7`, new today: built there on first use otherwise).
  Chain, one empty store, `solve 0*17 --misere --rct-table s7 --jobs 2 --store NEW --json`
        and then the same for 0*18 on that store, 11:57-12:22: 0*17 W, 1:36 wall (86 s of
        search), 181 CPU s, 644,968 visits, 7,368 stored, 1.58 GB; 0*18 W (A164950) in
        22:34 wall (1,339 s of search), 2,669 CPU s, 6,110,988 main visits, 75,441 stored,
        2.97 GB; root options shown winning (of 10, s of search): 8 by 158, then the losing
        one at 1,339. The chain from nothing: 24:10 wall, 0.81x the 30-minute goal. Its check,
        `check --misere --root 0*18 --rct-table s7 --json`: W, clean, 39,113 losing nodes
        used and verified, 0 unproven, 100 CPU s, 2.27 GB.
  Paired, 0*18 on S7 fresh, the same command on a new store, 12:24-12:49: W in 24:50 wall
        (1,476 s of search), 2,939 CPU s, 6,514,205 main visits, 80,531 stored, 3.00 GB; 8
        options by 247 s. Main visits at ~300 / 600 / 1,000 s: chain 2.02 / 3.52 / 5.00 M,
        fresh 1.89 / 3.36 (at 518: 2.91) / 4.89 M. So the goal is met from an empty store
        by S7 --jobs 2 alone on this instance (0.83x), and 0*17's proof in the store paid
        little: 0*18's search 0.91x, visits 0.94x, the chain's wall with 0*17 0.97x the
        fresh run's. The lever against the morning's 41:01 was the instance: 0.45 CPU ms a
        main visit against 0.64, with 0.91x the visits (one run each).

2026-12-04 evening (the afternoon's machine: the cached S7 found, not rebuilt), under
/usr/bin/time -v:
  0*21 on S7 from S7's proof of 0*20 alone (row d): `import misere-0x20-s7.spdbx` into a new
        store, then `solve 0*21 --misere --rct-table s7 --jobs 2`, 13:36-15:45, stopped by
        Ctrl-C: undecided after 7,685 s of search (2:08:23 wall), 13,890 CPU s, 32,999,335
        main visits, 179,076 losing nodes stored by the main search (367,498 in the store
        with the helper's and the 42,934 imported), 3.72 GB peak. The suite ran beside it
        from 1:30 to 1:48 (18 of its minutes on shared cores). Root options shown winning
        (the Ctrl-C report names them): 0*20.AB|AB, 0*19.AB|0.AB, 0*16.AB|0*4.AB,
        0*15.AB|0*5.AB, 0*10.AB|0*10.AB; the progress line counted the first before the
        first visit (0*20's proof) and the others at 11.1 M, 17.4 M, 17.9 M and 25.2 M main
        visits (3,128 / 4,550 / 4,632 / 6,127 s of search). Open: 0*11.AB|0*9.AB,
        0*12.AB|0*8.AB, 0*13.AB|0*7.AB, 0*14.AB|0*6.AB, 0*17.AB|0*3.AB, 0*18.AB|0*2.AB,
        0*19.1a1a. S6's runs of 2026-11-27..29 had 8 of 12 after ~66.6 M visits and
        ~44,800 CPU s (on older code, three machines), so S7 is not behind at 5 of 12 after
        33.0 M and 13,890 CPU s, but it did not decide 0*21 in a session. The store is kept
        as bench/checkpoints/misere-0x21-s7.spdbx (367,498 nodes, 2.4 MB). Each winning
        option checked on that store with S7 alone (`check --misere --root OPT --rct-table
        s7`, one at a time, 15:45-16:04): all W, clean, 0 unproven, 0 claims refuted; losing
        nodes used and verified (CPU s, peak): 0*20.AB|AB 70,280 (202, 3.0 GB),
        0*19.AB|0.AB 73,222 (226, 3.1 GB), 0*16.AB|0*4.AB 55,936 (152; these three beside
        the suite, 15:48-15:59),
        0*15.AB|0*5.AB 49,361 (119), 0*10.AB|0*10.AB 50,967 (98, 2.4 GB). Not pruned.

2026-12-04 late (same machine, cached S7), under /usr/bin/time -v:
  0*21 on S7 decided (row d, its second run): `import misere-0x21-s7.spdbx` (the stopped
        run's store, 367,498 nodes, 4.0 s) into a new store, then the same `solve 0*21
        --misere --rct-table s7 --jobs 2`, 16:25-17:27: L after 3,728.5 s of search
        (1:02:21 wall), 7,234.9 CPU s (7,206.6 user + 28.3 system), 16,551,633 main visits,
        68,836 losing nodes stored by the main search, 3.69 GB peak; one targeted test
        file ran beside it for a few minutes. The progress line's count of winning options
        went from 5 to 6 at 2.27 M visits (550 s), 7 at 11.6 M (2,463 s), then 8 / 9 / 10 /
        11 at 14.9 / 15.1 / 15.3 / 15.5 M (3,471 / 3,501 / 3,531 / 3,561 s), and the last at
        16.55 M (3,728 s): the last five fell within 257 s of search, the first seven
        took 3,471 s (the cause was not looked into). The two runs together, from 0*20's pruned S7 proof
        (42,934 nodes) alone: 3:10:44 wall, 11,413 s of search, 21,125 CPU s, 49.55 M main
        visits, 3.72 GB peak. S6's route from 0*20's proof took about 47,600 CPU s (~44,800
        before its checkpoint, on the code of 11-27..29 and three machines, plus ~2,820 for
        the last run): S7 0.44x; from an empty store, with the fresh 0*20 each started from
        (S7 6,035 CPU s, S6 ~19,500), about 27,200 against 67,100: 0.40x. Both ratios mix
        base, code and machines (one route each). Check: `check --misere --root 0*21
        --rct-table s7 --prune PROOF --cycles 1` on that store: L, clean, 149,794 losing
        nodes used and verified, 0 unproven, 116,477 position -> RCT claims taken from the
        re-derived S7 table, 0 refuted, 476.8 CPU s (7:59 wall), 5.53 GB peak. The pruned
        proof exported (0.96 MB) and imported alone into a fresh store checked clean again
        with S7 (L, 149,794 verified, 0 unproven, 0 refuted, 512.8 CPU s, 5.44 GB; beside
        the targeted tests), and was pruned there once more (the same 149,794 nodes, 485.5
        CPU s, 5.48 GB) so that its provenance names S7 (commit "check --prune writes a
        misère proof ..."); that file imported alone checks with no --rct-table ("solved
        on s7: checking with it": L, clean, 149,794 verified, 533.3 CPU s, 5.44 GB; beside
        the suite). It is a second proof of 0*21 = L (A164950 stops at 20; the conjecture,
        n = 21 = 3 mod 6, holds), independent of the library's S6 certificate
        (146,051 nodes): no S6-keyed fact entered its store. Kept as
        bench/checkpoints/misere-0x21-s7.spdbx (it replaces the stopped run's store).
  0*19 on S7 fresh, --jobs 1 (`python bench/misere.py --from 19 --to 19 --jobs 1 --table
        s7 --minutes 50 --cycles 1`, 18:20-18:46, alone on the cores): L, 1,139.9 s wall,
        1,138.8 CPU s, 4,396,057 visits, 45,787 stored, pruned proof 16,595, clean, 2,875
        MB, 3.9 s to open S7. Against --jobs 2 fresh (12-02, another instance): 1.67x the
        wall, 0.83x the CPU, 2.3x the main visits; against S6 --jobs 1 fresh (11-27, older
        code, 3 runs): 0.23x the wall, 0.85x the visits.

2026-12-04 night (a new instance of this machine kind, cached S7), `python bench/misere.py
--from N --to N --jobs 1 [--table s7] --cycles 1` under /usr/bin/time -v, two to four
processes at a time on the two cores (rows e and k: compare CPU s):
  0*20 on S7 (19:17-20:29, beside the S6 0*18 below, then the S7 0*18 runs): L, 4,133.8 s
        wall (1:08:54, the 2-hour goal met on one core), 3,787.7 CPU s, 12,805,597
        visits, 126,728 stored, pruned proof 41,545, clean, 3,969 MB, 4.5 s to open S7.
        Against --jobs 2 fresh (12-04 morning, another instance): 1.36x the wall, 0.63x
        the CPU, 1.58x the main visits.
  0*18 on S6 (19:17-19:55, today's code; 11-27's row was on the code before the compiled
        assembler and pass): W, 2,161.5 s wall, 2,143.5 CPU s, 11,279,220 visits (11-27:
        11,318,526), 136,565 stored, pruned proof 47,088, clean, 2,653 MB: 0.22x the CPU
        of 11-27's row for the same visits.
  0*18 on S7 (20:05-20:58, the code of the morning): W, 3,029.0 s wall, 2,220.5 CPU s,
        8,720,653 visits (the same as 12-02's), 113,584 stored, proof 38,574, clean, 4,001
        MB. So on today's code and one instance, S7 took 1.04x S6's CPU at 0*18 for 0.77x
        its visits (0.255 against 0.190 CPU ms a visit) and 1.51x its memory: the
        "S7 pays from 0*18" of 12-04 compared S7 on new code with S6 on 11-27's. A live
        profile (py-spy, 60 s of the 0*20 run above) put 19 % of S7's CPU in the index's
        binary search of lands (`IndexedRcts._find`, ~22 lines read in Python a land),
        52 % in the C core's children of new lands; at 0*15, 79 % of the lands asked
        about have more lives than any position of S7 (21).
  0*18 on S7 with the sampled, bounded index (row k, 20:35-21:20; commit "S7 index: find a
        land by a sampled bisect ..."): the same search (8,720,653 visits, 113,584 stored,
        proof 38,574, clean), 2,607.8 s wall, 1,929.0 CPU s: 0.87x the CPU of the run
        before, and 0.90x S6's; 4,009 MB. bench/rct_lookup.py on 0*14 (loaded machine):
        lookups 0.41-0.45x, search 0.84x the CPU, same visits.
  0*19 on S6 (21:04-21:27, beside the k run, then the S7 0*19 below and the suite): L,
        1,353.8 s wall, 1,139.3 CPU s, 4,963,365 visits, 49,744 stored, pruned proof
        17,671, clean, 1,768 MB (11-27's row: three resumed runs, 4,611 CPU s).
  0*19 on S7 with the sampled, bounded index (row k, 21:21-21:43, beside the suite): L,
        1,272.2 s wall, 967.7 CPU s, the same search as the late row (4,396,057 visits,
        45,787 stored, proof 16,595, clean), 2,892 MB. Against S6 above: 0.85x the CPU,
        0.89x the visits, 1.64x the memory.

2026-12-04, last (the night's instance, cached S7), under /usr/bin/time -v:
  S6 --jobs 2 fresh, 0*18..0*20 in one invocation (`python bench/misere.py --from 18 --to
        20 --jobs 2 --minutes 120 --cycles 1`, row m), from 22:10:
    0*18 alone on the two cores (22:10-22:41): W, 1,814.4 s wall (30:14, 1.01x the
        30-minute goal), 1,794.8 CPU s main, 3,592.3 in all, 8,686,491 main visits,
        188,481 stored (both processes'), pruned proof 51,832, clean, 2,581 MB. Against
        --jobs 1 (row e, this instance): 0.84x the wall, 1.68x the CPU, 0.77x the main
        visits; against S7 --jobs 2 fresh on the afternoon's faster instance (row p):
        1.23x the wall.
    0*19 (22:46-23:07) beside the S6 --jobs 1 0*20 below, the check below and the suite
        (three to five processes on the two cores; its wall is inflated): L, 1,443.1 s
        wall, 800.8 CPU s main, 1,603.5 in all, 3,734,795 main visits, 58,331 stored,
        pruned proof 19,556, clean, 1,630 MB. Against --jobs 1 (row e): 1.41x the CPU in
        all, 0.70x the main's, 0.75x the main visits.
  The check of S7's 0*21 proof once the checker keeps only a bounded cache of the keys a
        store does not hold as losing (commit "misère check: keep the keys a store holds
        ..."): `import misere-0x21-s7.spdbx` into a new store (2.7 s), then `check --misere
        --root 0*21 --json` (S7 from the store's provenance), 22:42-22:55 beside two
        searches: L, clean, 149,794 losing nodes used and verified, 0 unproven, 116,477
        claims from the re-derived S7 table, 0 refuted, 390.9 CPU s (371.1 user + 19.7
        system), 12:52 wall, 2.76 GB peak. The late log's same check: 533.3 CPU s and 5.44
        GB (now 0.73x and 0.51x).
  S6 --jobs 1 fresh 0*20 (`python bench/misere.py --from 20 --to 20 --jobs 1 --minutes 150
        --cycles 1`, row m, 22:42-00:23, beside the runs above and the suite, then niced
        --jobs 2 processes: its wall is inflated): L, 5,914.3 s wall, 3,938.8 CPU s of
        search (4,056.8 with its check, /usr/bin/time), 18,748,220 visits, 165,083
        stored, pruned proof 51,924, clean, 2,772 MB. 11-27's code took ~19,500 CPU s in
        six runs (0.20x now). Against S7 --jobs 1 fresh (row e, this instance, the code
        before the index fix): S7 0.96x the CPU, 0.68x the visits, 1.43x the memory; the
        fix took 0.87x of the same search's CPU at 0*18, so S7 today would be ~0.84x at
        0*20 (not run). S7 stays the default from 0*18's lives: measured, it saves 10 % of
        S6's CPU at 0*18 and 15 % at 0*19 (4 % at 0*20 before the fix) and 11-32 % of the
        visits, for 1.4-1.6x the memory and a ~590 CPU s build once.
  S6 --jobs 2 fresh 0*20 (the invocation's third n, 23:07-00:48, beside the --jobs 1 run
        above for 76 minutes, niced below it from 23:58, and the suite): stopped by hand,
        undecided, when the session's time ran out: 3,889 CPU s of the main process and
        3,892 of the helper after 1:41 of wall time, so already more CPU in the main alone
        than the --jobs 1 run's whole search (3,939 s). The
        helper's facts moved the main's df-pn path (at 0*18 and 0*19 they cut its visits
        to 0.75-0.77x); here they did not pay by that point. No figures beyond the CPU.

2026-12-05 (the instance of e, k and m, cached S7), under /usr/bin/time -v (rows q):
  S6 --jobs 2 fresh 0*20 (`python bench/misere.py --from 20 --to 20 --jobs 2 --minutes 140
        --cycles 1`, 01:15-02:25, alone on the two cores): L, 4,077.0 s wall (1:07:57, 0.57x the 2-hour goal), 4,033.9 CPU s
        main, 8,084.8 in all, 16,650,487 main visits, 216,916 stored (both processes'),
        pruned proof 53,936, clean (the whole invocation 1:09:59), 2,553 MB. Against
        --jobs 1 (row m): 0.89x the main visits, but 1.02x the main's CPU (0.242 against
        0.210 CPU ms a visit) and 2.05x the CPU in all; the --jobs 1 search, had it run
        alone, would have taken about its 3,939 CPU s of wall, so --jobs 2 gave ~1.03x
        its wall: no speed-up at 0*20 on S6 (0*18: 0.84x). Against S7 --jobs 2 fresh
        (12-04 morning, another instance): 1.34x the wall.
  0*17 as a user runs it (`sproutsdb solve 0*17 --misere --store NEW --quiet --json`,
        S6 by default, 02:30-02:33, beside the S7 run below): W, 165.8 s wall, 165.0 CPU s
        (11-26: 552), 1,608,717 visits and 23,498 stored as ever, 469 MB peak: within
        the issue's 500 MB. Its `check --misere --root 0*17`: clean, 8,384 losing nodes
        used, 13.8 s, 363 MB.
  S6 --jobs 2 fresh 0*15..0*17 (`nice -n 10 python bench/misere.py --from 15 --to 17 --jobs 2
        --cycles 1`, 02:36-02:48, beside the S7 run below: three processes on the two
        cores, so compare CPU s), filling the 11-28 rows' missing stored L and proof L:
        0*15 L, 129.9 CPU s in all (11-28: 219.3), 323,708 main visits, 9,179 stored,
        proof 2,989, 403 MB; 0*16 W, 229.3 (797.5), 613,441, 20,309, 3,739, 468 MB; 0*17
        W, 274.9 (854.2), 982,649, 30,301, 8,770, 569 MB. All clean, all A164950's. Against
        --jobs 1 on S6 (0*17 above: 165.0 CPU s): 1.67x the CPU in all for 0.61x the visits.
  S7 --jobs 1 fresh 0*20 with the index fix (`python bench/misere.py --from 20 --to 20 --jobs
        1 --table s7 --minutes 65 --cycles 1`, 02:30-03:20, its first 18 minutes beside
        the runs above, the rest alone): L, 2,871.9 s wall (47:52), 2,862.4 CPU s, the
        same search as row e (12,805,597 visits, 126,728 stored, proof 41,545, clean),
        3,507 MB, 3.3 s to open S7. Against row e (the code before the fix): 0.76x the
        CPU (the estimate of the last log was 0.84x). Against S6 --jobs 1 (row m): 0.73x
        the CPU, 0.68x the visits, 1.27x the memory; against S6 --jobs 2 alone (above):
        0.70x the wall on one core instead of two. So S7 pays most at 0*20 of the three
        sizes measured (0.90x S6's CPU at 0*18, 0.85x at 0*19).

2026-12-05, second entry (the same instance; runs of 12-05 03:23 and 04:16), under
/usr/bin/time -v (row r):
  S7 --jobs 1 at 0*21 from S7's 0*20 proof alone, the cell whose only row (12-02 n) came
        from a store mixing S6 and S7 facts: `import bench/checkpoints/misere-0x20-s7.spdbx`
        (42,934 nodes) into a new store, then `sproutsdb solve 0*21 --misere --rct-table s7
        --jobs 1 --store STORE --json`, one core, the other mostly idle. Run 1 (03:23-03:49)
        ended with the session, killed without a word (no report, no Ctrl-C): at its last
        progress line 1,554 s of search, 6,423,296 visits, 46,812 stored, 1 of 12 (0*20.AB|AB,
        from 0*20's proof). Run 2, the same command on that store (04:16-06:36), resumed
        from it and was stopped by SIGINT: 8,386.5 s of search, 8,387 CPU s (8,345 user + 42
        system), 43,645,969 visits, 232,529 losing nodes stored, 3.95 GB peak; a fresh clone's
        `make run` (the seeding of the library, 13 minutes) ran on the other core for its
        first 25 minutes. Root options shown winning: 0*20.AB|AB, 0*10.AB|0*10.AB,
        0*15.AB|0*5.AB, 0*16.AB|0*4.AB (2 of 12 at 3.1 M of run 2's visits, 3 at 28.9 M, 4 at
        33.5 M: 9.5 M, 35.3 M and 40.0 M with run 1's); open: 0*11.AB|0*9.AB, 0*12.AB|0*8.AB, 0*13.AB|0*7.AB, 0*14.AB|0*6.AB,
        0*17.AB|0*3.AB, 0*18.AB|0*2.AB, 0*19.1a1a, 0*19.AB|0.AB. Both runs: ~9,940 s of
        search and CPU, ~50.07 M visits, ~279,300 stored, 4 of 12. Against the --jobs 2 route
        (row d): its main search had 2, 3 and 4 of 12 at 11.1 M, 17.4 M and 17.9 M visits,
        5 at 25.2 M, and decided with 49.55 M; so on one core S7 needs more visits for the same options at 0*21 (the
        helper's facts pay there: 0*20 --jobs 2 on S7 took 0.63x the main visits of --jobs
        1). Not decided; the store is kept at /work/runs/s7j1-21-store on this instance
        and exported whole as bench/checkpoints/misere-0x21-s7-jobs1.spdbx (322,621 losing
        nodes, 2.1 MB, 1.5 s), which the same command resumes from once imported. One
        settled option checked on that store with S7 alone (`check --misere --root
        0*10.AB|0*10.AB --rct-table s7 --json`, beside the suite): W, clean, 49,810 losing
        nodes used and verified, 0 unproven, 59,473 position -> RCT claims from the
        re-derived table, 0 refuted, 77 CPU s, 2.0 GB.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

A164950 = "WLLLWWLLLWWWLLLWWWLL"  # misère outcomes of 0*1 .. 0*20 (OEIS A164950)
PAPER_POSITIONS = {
    7: 7,
    8: 24,
    9: 44,
    10: 114,
    11: 79,
    12: 983,
    13: 1082,
    14: 3517,
    15: 6906,
    16: 8981,
    17: 17583,
}


class OutOfTime(Exception):
    pass


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_one(
    n: int,
    table_path: str,
    minutes: float,
    cycles: int,
    jobs: int | None = None,
    seed_results: bool = False,
) -> dict[str, object]:
    """Solve and check misère 0*n in this process (and with `jobs`, its helpers); one row
    of the table. With `seed_results`, the store first gets the results library's
    certificates of 0*1..0*(n-1), as `solve --seed-results` does."""
    import tempfile
    from contextlib import ExitStack

    from sproutsdb.ops.jobs.parallel_misere import SHARE_SECONDS, misere_helpers_running
    from sproutsdb.ops.solve import SolveSettings, Solving
    from sproutsdb.solver.misere.solver import Progress
    from sproutsdb.solver.ports.proofstore import MemoryProofStore, ProofStore
    from sproutsdb.trusted_tables import verified_rcts

    opened_cpu = _cpu()
    rcts = verified_rcts(table_path)  # as every command: re-derived (or cached), S7 in place
    opened_cpu = _cpu() - opened_cpu
    deadline = time.monotonic() + minutes * 60

    def check(_: Progress) -> None:
        if time.monotonic() > deadline:
            raise OutOfTime

    resources = ExitStack()
    store: ProofStore
    if seed_results and jobs is None:
        jobs = 1  # seeding needs an LMDB store
    if jobs is None:
        store = MemoryProofStore()
    else:
        from sproutsdb.ops.jobs.helper_processes import HelperSpec
        from sproutsdb.ops.shipped_rcts import describe_source
        from sproutsdb.ops.stores import StoreLocation, open_proof_store

        folder = resources.enter_context(tempfile.TemporaryDirectory(prefix="misere-bench-"))
        store = open_proof_store(folder, game="sprouts")
        resources.callback(store.close)
        helpers = HelperSpec(StoreLocation(path=folder), rct_table=str(table_path))
        source = describe_source("file", table_path)
    seeded = 0
    if seed_results:
        from sproutsdb.ops.seed import seed_results_below
        from sproutsdb.solver.ports.proofstore import FactKind
        from sproutsdb.solver.sprouts.game import SproutsGame

        seed_results_below(store, SproutsGame(), f"0*{n}", "misere")
        counted: Any = store  # (an LMDB store: counts, as _row reads them)
        seeded = counted.count(FactKind.MISERE)
    settings = SolveSettings(
        misere=True,
        rcts=rcts,
        progress=check,
        progress_interval=1.0,
        share_seconds=SHARE_SECONDS if jobs is not None and jobs > 1 else None,
    )
    wall, cpu, helpers_cpu = time.perf_counter(), _cpu(), _children_cpu()
    with resources:
        with ExitStack() as running:
            if jobs is not None:
                links = running.enter_context(
                    misere_helpers_running(helpers, f"0*{n}", jobs, source)
                )
                settings = dataclasses.replace(
                    settings, busy=links.busy, root_share=links.root_share
                )
            with Solving(store, settings=settings) as session:  # flushed on leaving
                try:
                    outcome: str | None = session.solve(f"0*{n}").outcome
                except OutOfTime:
                    outcome = None
        wall, cpu = time.perf_counter() - wall, _cpu() - cpu
        helpers_cpu = _children_cpu() - helpers_cpu
        row = _row(n, outcome, wall, cpu, session, store, rcts, cycles, seeded)
    row.update(jobs=jobs or 1, all_cpu_seconds=round(cpu + helpers_cpu, 1), seeded=seeded)
    row["table_open_cpu_seconds"] = round(opened_cpu, 1)
    row["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    return row


def _row(
    n: int,
    outcome: str | None,
    wall: float,
    cpu: float,
    session: Any,
    store: Any,
    rcts: Any,
    cycles: int,
    seeded: int = 0,
) -> dict[str, object]:
    """The row of one n: the search's figures, then the check of what it stored.

    ``seeded`` losing nodes came from the results library before the search: not its own.
    """
    from sproutsdb.solver.misere.check import check_misere_with_cycles
    from sproutsdb.solver.misere.rct_trust import DerivedRcts
    from sproutsdb.solver.misere.solver import MisereSolver
    from sproutsdb.solver.ports.proofstore import FactKind, MemoryProofStore

    game, stats = session.game, session.stats
    row: dict[str, object] = {
        "n": n,
        "outcome": outcome,
        "published": A164950[n - 1] if n <= 20 else None,
        "seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "visits": stats.nodes,
        "expansions": stats.expansions,
        "stored": store.count(FactKind.MISERE) - seeded,
        "paper_positions": PAPER_POSITIONS.get(n),
    }
    if outcome is not None:
        check_wall, check_cpu = time.perf_counter(), _cpu()
        # as `check --misere --rct-table`: each land's RCT re-derived, here from the table
        checked = DerivedRcts(game, rcts, trusted=rcts.rct_id_of)
        engine = MisereSolver(game, MemoryProofStore(), checked)
        best, sizes = check_misere_with_cycles(engine, store, f"0*{n}", cycles=cycles, seed=n)
        row.update(
            check_ok=bool(best.ok and best.outcome == outcome),
            proof_first=sizes[0],
            proof=len(best.used),
            check_seconds=round(time.perf_counter() - check_wall, 1),
            check_cpu_seconds=round(_cpu() - check_cpu, 1),
        )
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--from", dest="first", type=int, default=12)
    parser.add_argument("--to", dest="last", type=int, default=20)
    parser.add_argument(
        "--minutes",
        type=float,
        default=20.0,
        help="wall-time cap of the search of each n (default 20)",
    )
    parser.add_argument(
        "--cycles",
        type=int,
        default=3,
        help="random check cycles for the pruned proof (as check --cycles)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help="as solve --misere --jobs N, on an LMDB store (default: one process, in memory)",
    )
    parser.add_argument(
        "--table",
        default=str(ROOT / "data" / "s6.rcttable"),
        metavar="FILE|sN",
        help="the RCT table, as solve --rct-table: a file, or s6 / s7 (s7 built once into "
        "the cache); default the shipped S6",
    )
    parser.add_argument(
        "--seed-results",
        action="store_true",
        help="as solve --seed-results: each n's store (LMDB) first gets the results "
        "library's certificates of 0*1..0*(n-1); 'stored L' counts the new nodes only",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per n")
    parser.add_argument("--one", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    from sproutsdb.ops.rct_tables import rct_table_file

    args.table = str(rct_table_file(args.table, notice=lambda line: print(line, file=sys.stderr)))
    if args.one is not None:  # the child process of one n
        row = run_one(args.one, args.table, args.minutes, args.cycles, args.jobs, args.seed_results)
        print(json.dumps(row), flush=True)
        return 0
    if args.jobs is not None and args.jobs < 1:
        parser.error("--jobs must be at least 1")
    print(
        f"# table {args.table}; at most {args.minutes:g} min of search per n; "
        f"check --misere --prune --cycles {args.cycles}",
        file=sys.stderr,
    )
    if not args.json:
        jobs_head = f" {'jobs':>4} {'all CPU s':>9}" if args.jobs is not None else ""
        print(
            f"{'n':>3} {'outcome':>8} {'A164950':>7} {'wall s':>8} {'CPU s':>8}{jobs_head} "
            f"{'visits':>10} {'stored L':>9} {'proof L':>8} {'paper pos.':>10} "
            f"{'check':>6} {'peak RSS':>9} {'open s':>6}"
        )
    status = 0
    for n in range(args.first, args.last + 1):
        done = subprocess.run(
            [
                sys.executable,
                __file__,
                "--one",
                str(n),
                "--minutes",
                str(args.minutes),
                "--cycles",
                str(args.cycles),
                "--table",
                args.table,
                *(["--jobs", str(args.jobs)] if args.jobs is not None else []),
                *(["--seed-results"] if args.seed_results else []),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            print(f"0*{n}: the run failed:\n{done.stderr}", file=sys.stderr)
            return 1
        row = json.loads(done.stdout.strip().splitlines()[-1])
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            outcome = row["outcome"] or "timeout"
            proof = row.get("proof", "-")
            check = {True: "clean", False: "FAIL"}.get(row.get("check_ok"), "-")  # type: ignore[arg-type]
            paper = row["paper_positions"] if row["paper_positions"] is not None else "-"
            jobs = f" {row['jobs']:>4} {row['all_cpu_seconds']:>9}" if args.jobs is not None else ""
            print(
                f"{n:>3} {outcome:>8} {row['published'] or '-':>7} {row['seconds']:>8} "
                f"{row['cpu_seconds']:>8}{jobs} {row['visits']:>10,} {row['stored']:>9,} "
                f"{proof:>8} {paper:>10} {check:>6} {row['peak_rss_mb']:>6} MB "
                f"{row['table_open_cpu_seconds']:>6}",
                flush=True,
            )
        if row["outcome"] is not None and row["outcome"] != row["published"]:
            print(
                f"0*{n}: outcome {row['outcome']} differs from A164950's {row['published']}",
                file=sys.stderr,
            )
            status = 1
            break
        if row.get("check_ok") is False:
            print(f"0*{n}: the check of the stored losing nodes is not clean", file=sys.stderr)
            status = 1
            break
    return status


if __name__ == "__main__":
    sys.exit(main())
