/** What processes cost, read from outside through /proc (Linux): CPU time and resident memory of process trees. */
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux
const PAGE_BYTES = 4096;

interface Stat {
  pid: number;
  ppid: number;
  /** utime + stime, and cutime + cstime: children it has reaped (a closed database connection's backend, say). */
  ticks: number;
}

function stat(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name, in parentheses, may hold spaces: the fields after it are split from its closing one.
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]) };
  } catch {
    return null;
  }
}

/** `roots` and every process below them. */
function tree(roots: number[]): Stat[] {
  const all = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => stat(Number(name)))
    .filter((s): s is Stat => s !== null);
  const children = new Map<number, Stat[]>();
  for (const s of all) children.set(s.ppid, [...(children.get(s.ppid) ?? []), s]);
  const found: Stat[] = [];
  const walk = (pid: number) => {
    const own = all.find((s) => s.pid === pid);
    if (own) found.push(own);
    for (const child of children.get(pid) ?? []) walk(child.pid);
  };
  for (const root of roots) walk(root);
  return found;
}

/** CPU milliseconds the trees under `roots` have used so far. */
export function cpuMs(roots: number[]): number {
  return (tree(roots).reduce((sum, s) => sum + s.ticks, 0) * 1000) / TICKS_PER_SECOND;
}

/** Resident bytes of the trees under `roots`. */
export function rssBytes(roots: number[]): number {
  let pages = 0;
  for (const { pid } of tree(roots)) {
    try {
      pages += Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]);
    } catch {
      // gone meanwhile
    }
  }
  return pages * PAGE_BYTES;
}

/** The 1-minute load average. */
export const loadAverage = () => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
