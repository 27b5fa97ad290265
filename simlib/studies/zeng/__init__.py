"""Paper Z (Zeng & Sodan): group matchmaking for time/space sharing on multi-core nodes.

X. Zeng and A. Sodan, "Job Scheduling with Lookahead Group Matchmaking for
Time/Space Sharing on Multi-core Parallel Machines" (G-LOMARC-TS on top of
Scojo-PECT). The modules so far:

* :mod:`~simlib.studies.zeng.slowdowns` -- the statistical slowdown model
  of Section 4.9 (Table 4) and formulas 7 and 8 (job size and processes
  per node on the 4-core nodes);
* :mod:`~simlib.studies.zeng.workloads` -- the adjusted Lublin workloads
  W1 and W2 (Sections 4.8 and 5.1), their files and Table 5's quantities.
"""
