import { loadManifests, type ManifestDirs, type ManifestSet } from "../manifests/load.js";
import { nativeAvailability, type NativeAvailability } from "../runner/proxy-binary.js";
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
  proxies: Array<{ proxy: string; here: boolean; note: string }>;
}

function note(a: NativeAvailability | undefined): { here: boolean; note: string } {
  switch (a?.kind) {
    case "direct":
      return { here: true, note: "no proxy" };
    case "found":
      return { here: true, note: `native ${a.version}` };
    case "image-only":
      return { here: false, note: "image only" };
    case "missing":
      return { here: false, note: `not installed: ${a.fix}` };
    default:
      return { here: false, note: "no manifest" };
  }
}

/** Pure: the listing of studies given each proxy's availability. */
export function studyListings(
  studies: Iterable<LoadedStudy>,
  availability: ReadonlyMap<string, NativeAvailability>,
): StudyListing[] {
  return [...studies].map(({ manifest: m }) => ({
    name: m.name,
    title: m.title,
    seed: m.source.seed,
    layout: m.layout,
    engine: m.engine,
    proxies: m.proxies.map((proxy) => ({ proxy, ...note(availability.get(proxy)) })),
  }));
}

/** Pure: the listing as terminal lines. */
export function formatStudyListings(listings: StudyListing[]): string {
  const lines = ["Studies (proxybench run --study NAME):"];
  for (const s of listings) {
    const here = s.proxies.filter((p) => p.here).length;
    lines.push(`  ${s.name}  ${s.title}`);
    lines.push(
      `    seed ${s.seed}, ${s.engine}, ${s.layout} table; ${here} of ${s.proxies.length} proxies run here:`,
    );
    lines.push(`    ${s.proxies.map((p) => `${p.here ? "+" : "-"} ${p.proxy} (${p.note})`).join(", ")}`);
  }
  return lines.join("\n");
}

/** Loads the studies and checks each proxy's availability on this machine. */
export async function listStudies(
  dirs: ManifestDirs = {},
  studiesDir: string = BUILTIN_STUDIES_DIR,
  manifests?: ManifestSet,
): Promise<StudyListing[]> {
  const studies = await loadStudies(studiesDir);
  const set = manifests ?? (await loadManifests(dirs));
  const availability = new Map<string, NativeAvailability>();
  for (const study of studies.values()) {
    for (const proxy of study.manifest.proxies) {
      const loaded = set.proxies.get(proxy);
      if (loaded && !availability.has(proxy)) availability.set(proxy, await nativeAvailability(loaded));
    }
  }
  return studyListings(studies.values(), availability);
}
