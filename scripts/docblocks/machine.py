#!/usr/bin/env python3
"""Describes the machine this runs on, from lscpu, /proc/meminfo and `rankone --version`.

usage: machine.py           the paragraph of docs/PERFORMANCE.md (CPU, caches, memory, build)
       machine.py --short   one line, recorded beside the results of a run (regenerate-docs)
"""
import os
import re
import subprocess
import sys

from results import rankone


def lscpu():
    out = subprocess.run(["lscpu"], capture_output=True, text=True, env=dict(os.environ, LC_ALL="C")).stdout
    return {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in out.splitlines() if ":" in line)}


def memory_gib():
    for line in open("/proc/meminfo"):
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) / 2**20
    return 0.0


def short(cpu):
    threads = int(cpu.get("Thread(s) per core", "1"))
    where = f" under {cpu['Hypervisor vendor']}" if "Hypervisor vendor" in cpu else ""
    return f"{cpu.get('Model name', 'unknown CPU')}, {cpu.get('CPU(s)', '?')} CPUs ({threads} per core){where}"


def main():
    cpu = lscpu()
    if sys.argv[1:] == ["--short"]:
        print(f"{short(cpu)}, load {os.getloadavg()[0]:.1f}")
        return
    flags = set(cpu.get("Flags", "").split())
    vector = [f for f in ("sse2", "avx", "avx2", "fma", "avx512f") if f in flags]
    caches = ", ".join(f"{name} {cpu[key].split(' (')[0]}" for key, name in
                       (("L1d cache", "L1d"), ("L2 cache", "L2"), ("L3 cache", "L3")) if key in cpu)
    version = subprocess.run([rankone(), "--version"], capture_output=True, text=True, check=True).stdout
    field = dict(line.split(": ", 1) for line in version.splitlines() if ": " in line)
    compiler = re.sub(r"^gcc ", "GCC ", field.get("compiler", "unknown compiler"))
    print(f"{short(cpu)}, family {cpu.get('CPU family', '?')} model {cpu.get('Model', '?')}; caches in all "
          f"(lscpu): {caches}; {memory_gib():.0f} GiB RAM; vector extensions: {', '.join(vector)}.")
    flags = " ".join(field.get("flags", "unknown flags").split())
    print(f"Build: {compiler}, {flags}; {field.get('libraries', '')}.")


if __name__ == "__main__":
    main()
