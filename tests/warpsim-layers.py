#!/usr/bin/env python3
"""warpsim-layers.py: holds warpsim/src to its layers.

usage: warpsim-layers.py [--graph] LAYERS OBJECT...

LAYERS lists warpsim/src's files from the bottom up, one layer a line
(`#` starts a comment); the objects are those files compiled (build/obj/*.o,
one per .c file of LAYERS). A file depends on another when it uses a
symbol (a function or a variable) that the other defines, as the objects'
symbol tables say (nm): what the linker resolves, inline functions of the
headers included. Every dependency must go down: to a file of a lower
layer, or to one listed before it in its own layer. Then no two files
depend on each other, directly or through others: there is no circle.
What calls up does so through a hook it is given (a function pointer),
which no symbol table shows as a dependency.

Prints each dependency that goes up or sideways (FILE -> FILE: SYMBOLS)
and, with --graph, every dependency; exit status 0 when none goes up, 1
when one does, 2 for bad usage (an object of no file of LAYERS, or a file
of LAYERS without its object).
"""
import os
import subprocess
import sys


def read_layers(path):
    order, layer = [], {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f):
            line = line.split("#", 1)[0].split()
            for name in line:
                name = os.path.splitext(name)[0]
                if name in layer:
                    raise ValueError(f"{path}: {name} is listed twice")
                layer[name] = len(order)
                order.append(name)
    return order, layer


def symbols(obj):
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TDBRCVGS":   # global definitions (not weak)
            defined.add(parts[2])
        elif len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
    return defined, used


def main(argv):
    graph = False
    if argv and argv[0] == "--graph":
        graph, argv = True, argv[1:]
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    try:
        order, rank = read_layers(argv[0])
    except (OSError, ValueError) as e:
        print(f"warpsim-layers.py: {e}", file=sys.stderr)
        return 2
    objs = {}
    for o in argv[1:]:
        name = os.path.splitext(os.path.basename(o))[0]
        if name not in rank:
            print(f"warpsim-layers.py: {o} is the object of no file that {argv[0]} lists", file=sys.stderr)
            return 2
        objs[name] = o
    missing = [n for n in order if n not in objs]
    if missing:
        print(f"warpsim-layers.py: no object for {', '.join(missing)}", file=sys.stderr)
        return 2
    defs, uses = {}, {}
    for name, o in objs.items():
        defs[name], uses[name] = symbols(o)
    owner = {}
    for name in order:
        for s in defs[name]:
            owner.setdefault(s, name)
    bad = 0
    for name in order:
        deps = {}
        for s in sorted(uses[name]):
            if s in owner and owner[s] != name:
                deps.setdefault(owner[s], []).append(s)
        for dep in sorted(deps, key=rank.get):
            up = rank[dep] > rank[name]
            if up or graph:
                shown = deps[dep] if len(deps[dep]) <= 6 else deps[dep][:6] + [f"... {len(deps[dep])} in all"]
                print(f"{name} -> {dep}{' (up)' if up else ''}: {' '.join(shown)}")
            bad += up
    print(f"{len(order)} files, {bad} dependenc{'y' if bad == 1 else 'ies'} going up")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
