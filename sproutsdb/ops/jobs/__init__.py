"""Solving on more than one core: `--jobs N` helper processes beside one main search
(parallel_normal, parallel_misere, with their shared busy marks) and the Ray fleet of solvers
that are clients of one server (ray_fleet, ray_fleet_misere). Ray is imported only by the
fleet modules."""
