import { getEngine } from "../../engines/index.js";
import { loadManifests, type ManifestDirs, type ManifestSet } from "../../manifests/load.js";
import type { Engine } from "../../results/schema.js";
import { nativeAvailability, type NativeAvailability } from "../../runner/proxy-binary.js";
import { BUILTIN_STUDIES_DIR, loadStudies, type LoadedStudy } from "./load.js";

/**
 * The studies for `proxybench list`: each with its source, layout, engine, and its proxies
 * marked by whether they can run here.
 */

export interface StudyListing {
  name: string;
  title: string;
  seed: string;
  layout: string;
  engine: string;
  /** Whether the study's load generator is installed here. */
  engineFound: boolean;
  proxies: Array<{ proxy: string; here: boolean; note: string }>;
  /** The one command that installs what the study needs and is missing here (engine, binaries). */
  setup?: string;
}

/** The command that installs what a study needs (scripts/setup.sh --study NAME). */
export function studySetupCommand(study: string): string {
  return `npm run setup -- --study ${study}`;
}

/** What the listing says of a proxy that is not found here, by its availability, and whether it runs. */
const NOTES = {
  direct: { here: true, note: "no proxy" },
  "image-only": { here: false, note: "image only" },
  missing: { here: false, note: "not installed" },
} as const;

function note(a: NativeAvailability | undefined): { here: boolean; note: string } {
  if (a?.kind === "found") return { here: true, note: `native ${a.version}` };
  return a === undefined ? { here: false, note: "no manifest" } : NOTES[a.kind];
}

/** Pure: the listing of studies given each proxy's availability. */
export function studyListings(
  studies: Iterable<LoadedStudy>,
  availability: ReadonlyMap<string, NativeAvailability>,
  enginesFound: ReadonlyMap<string, boolean> = new Map(),
): StudyListing[] {
  return [...studies].map(({ manifest: m }) => {
    const engineFound = enginesFound.get(m.engine) ?? true;
    const installable = m.proxies.some((p) => availability.get(p)?.kind === "missing");
    return {
      name: m.name,
      title: m.title,
      seed: m.source.seed,
      layout: m.layout,
      engine: m.engine,
      engineFound,
      proxies: m.proxies.map((proxy) => ({ proxy, ...note(availability.get(proxy)) })),
      ...(!engineFound || installable ? { setup: studySetupCommand(m.name) } : {}),
    };
  });
}

/** Pure: the listing as terminal lines. */
export function formatStudyListings(listings: StudyListing[]): string {
  const lines = ["Studies (proxybench study NAME):"];
  for (const s of listings) {
    const here = s.proxies.filter((p) => p.here).length;
    lines.push(`  ${s.name}  ${s.title}`);
    lines.push(
      `    seed ${s.seed}, ${s.engine}, ${s.layout} table; ${here} of ${s.proxies.length} proxies run here:`,
    );
    lines.push(`    ${s.proxies.map((p) => `${p.here ? "+" : "-"} ${p.proxy} (${p.note})`).join(", ")}`);
    if (!s.engineFound)
      lines.push(`    its load generator ${s.engine} is not installed: the study cannot run here`);
    if (s.setup) lines.push(`    install what it needs: ${s.setup}`);
  }
  return lines.join("\n");
}

/** Loads the studies and checks each proxy's availability on this machine. */
export async function listStudies(
  dirs: ManifestDirs = {},
  studiesDir: string = BUILTIN_STUDIES_DIR,
  manifests?: ManifestSet,
  engineFound: (engine: Engine) => Promise<boolean> = (engine) =>
    getEngine(engine)
      .locate()
      .then(
        () => true,
        () => false,
      ),
): Promise<StudyListing[]> {
  const studies = await loadStudies(studiesDir);
  const set = manifests ?? (await loadManifests(dirs));
  // Each proxy and engine probed once, all at once: every probe waits on a child process.
  const proxies = [...new Set([...studies.values()].flatMap((s) => s.manifest.proxies))].flatMap(
    (name) => set.proxies.get(name) ?? [],
  );
  const engineNames = [...new Set([...studies.values()].map((s) => s.manifest.engine))];
  const [found, enginesFound] = await Promise.all([
    Promise.all(proxies.map(nativeAvailability)),
    Promise.all(engineNames.map(engineFound)),
  ]);
  const availability = new Map(proxies.map((p, i) => [p.manifest.name, found[i]!] as const));
  const engines = new Map(engineNames.map((e, i) => [e as string, enginesFound[i]!] as const));
  return studyListings(studies.values(), availability, engines);
}
