package dev.leasehold.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@link ScaleBench}'s report, {@code SCALE.md}: one section per part, each between markers so a
 * run of one part replaces its own section and keeps the other's.
 */
final class ScaleReport {

    private static final String TITLE = "# Leasehold at scale: 100,000 leases, a million lock names\n\n";
    /** Key-count samples shown per peer in the names part's series. */
    private static final int SERIES_POINTS = 14;

    private ScaleReport() {
    }

    /** {@code existing} with {@code part}'s section replaced by {@code section} (or added). */
    static String merge(String existing, ScaleBench.Part part, String section) {
        StringBuilder report = new StringBuilder(TITLE).append("Written by `ScaleBench` (see its Javadoc for the ")
                .append("command); each part's section says when, on which revision and under which load it ran.\n\n");
        for (ScaleBench.Part each : ScaleBench.Part.values()) {
            String body = each == part ? section : sectionOf(existing, each);
            if (body != null) {
                report.append(open(each)).append('\n').append(body.strip()).append('\n').append(close(each)).append("\n\n");
            }
        }
        return report.toString();
    }

    private static String sectionOf(String report, ScaleBench.Part part) {
        Matcher matcher = Pattern.compile(Pattern.quote(open(part)) + "\\n(.*?)\\n" + Pattern.quote(close(part)),
                Pattern.DOTALL).matcher(report);
        return matcher.find() ? matcher.group(1) : null;
    }

    private static String open(ScaleBench.Part part) {
        return "<!-- scale:" + part.name().toLowerCase(Locale.ROOT) + " -->";
    }

    private static String close(ScaleBench.Part part) {
        return "<!-- /scale:" + part.name().toLowerCase(Locale.ROOT) + " -->";
    }

    /** The lines under a part's heading: revision, versions, settings, the machine's load. */
    static String conditions(Machine machine, ScaleBench.Settings settings, String loadBefore, Duration took) {
        return "Revision `" + machine.revision() + "`, " + machine.date() + "; redis-server " + machine.redisVersion()
                + ", " + machine.jdk() + ", Redisson " + machine.libraries().get("Redisson") + ", Lettuce "
                + machine.libraries().get("Lettuce") + "; " + settings.name() + " settings, took "
                + took.toSeconds() + " s. Before it: " + loadBefore + "; after it: " + MachineLoad.now() + ".\n\n";
    }

    static String leases(ScaleBench.Leases leases, ScaleBench.Settings settings) {
        WatchdogWorkload.Settings s = settings.leases();
        List<WatchdogWorkload.Cell> own = leases.rounds().get(Contender.LEASEHOLD);
        List<WatchdogWorkload.Cell> peer = leases.rounds().get(Contender.REDISSON);
        StringBuilder md = new StringBuilder("## ").append(Fmt.count(s.leases())).append(" watchdog leases on one client\n\n");
        md.append(conditionsNote(leases.foreignCpuPercent()));
        md.append("Each library holds ").append(Fmt.count(s.leases())).append(" leases on fresh names, taken by ")
                .append(s.acquirers()).append(" threads on one client, with a ").append(s.ttl().toSeconds())
                .append(" s watchdog ttl (Redisson: `lockWatchdogTimeout` ").append(s.ttl().toSeconds())
                .append(" s), renewed every ").append(Fmt.one(s.ttl().toMillis() / 3000.0)).append(" s; ")
                .append(Fmt.one(s.warmup().toMillis() / 1000.0)).append(" s after the last acquire, a ")
                .append(Fmt.one(s.window().toMillis() / 1000.0)).append(" s window is measured. ")
                .append(settings.rounds()).append(" round(s), one client each, the order rotated; figures are medians ")
                .append("of the rounds [lowest–highest], ratios medians of per-round ratios. The harness JVM alone ")
                .append("idles at ").append(Fmt.one(leases.idleClientCpuPercent()))
                .append(" % of a core, which is in both client figures. Renewals come in bursts (every lease is ")
                .append("renewed within the few seconds it took to take them all), so CPU and calls are means over the ")
                .append("window. Script time is wall time inside the scripts: on a loaded machine a script that loses ")
                .append("its core counts the wait, so the server's CPU (`INFO cpu`) is the figure to compare.\n\n");
        md.append("| | Leasehold | Redisson RLock | Leasehold ÷ Redisson |\n| --- | --- | --- | --- |\n");
        row(md, "heap per lease, B (used after GC, held − before)", own, peer, c -> c.heap().bytesPerLease(), Fmt::count, true);
        row(md, "heap left per lease after release, B", own, peer, c -> c.heap().bytesLeftPerLease(), Fmt::count, false);
        row(md, "client CPU, % of a core (mean over the window)", own, peer,
                WatchdogWorkload.Cell::meanClientCpuPercent, Fmt::one, true);
        row(md, "Redis CPU, % of a core", own, peer, WatchdogWorkload.Cell::serverCpuPercent, Fmt::one, true);
        row(md, "script time per renewal, µs (`INFO commandstats`, wall time inside the scripts)", own, peer,
                WatchdogWorkload.Cell::scriptMicrosPerRenewal, Fmt::two, true);
        row(md, "client heap allocated per renewal, B (all threads)", own, peer, WatchdogWorkload.Cell::allocatedPerRenewal,
                Fmt::count, true);
        row(md, "script calls per second (mean)", own, peer, WatchdogWorkload.Cell::meanScriptCallsPerSecond, Fmt::one,
                false);
        row(md, "leases renewed per script call", own, peer, c -> c.leasesPerScriptCallOverWindow(s), Fmt::count, false);
        row(md, "seconds to take the leases", own, peer, c -> c.hold().acquireSeconds(), Fmt::one, true);
        row(md, "lock keys at the end of the window", own, peer, c -> c.leasesAliveAtEnd(), Fmt::count, false);
        row(md, "keys the server expired while the leases were held", own, peer, c -> c.hold().expiredKeys(),
                Fmt::count, false);
        row(md, "releases that failed (a lock that lapsed)", own, peer, c -> c.hold().releaseFailures(), Fmt::count, false);
        md.append("| leases the client counts as lost at the end | ").append(lost(own)).append(" | ").append(lost(peer))
                .append(" | — |\n");
        md.append("| client CPU by thread group, % of a core (last round) | ").append(byThread(own)).append(" | ")
                .append(byThread(peer)).append(" | — |\n\n");
        boolean valid = own.stream().allMatch(c -> c.hold().allValid() && c.leasesAliveAtEnd() == s.leases())
                && peer.stream().allMatch(c -> c.hold().allValid() && c.leasesAliveAtEnd() == s.leases());
        md.append(valid ? "**Every lease of both libraries stayed valid** from its acquire to the end of the window: "
                        + "no key expired on the server, every lock key was there at the end, and Leasehold's client "
                        + "counted every lease as held.\n\n"
                : "**Not every lease stayed valid**: see the rows on expired keys, lock keys and lost leases.\n\n");
        md.append("Heap per lease by class (first round; objects live with the leases held minus before, per lease; ")
                .append("both include the harness's share: the name, a list slot and the adapter's wrapper):\n\n");
        md.append(classes("Leasehold", own.get(0))).append(classes("Redisson RLock", peer.get(0)));
        return md.toString();
    }

    private static String conditionsNote(double foreignCpuPercent) {
        return "Other processes used " + Fmt.one(foreignCpuPercent) + " % of the machine's CPU while this part ran.\n\n";
    }

    private static void row(StringBuilder md, String label, List<WatchdogWorkload.Cell> own,
                            List<WatchdogWorkload.Cell> peer, ToDoubleFunction<WatchdogWorkload.Cell> figure,
                            Function<Double, String> format, boolean ratio) {
        List<Double> mine = own.stream().mapToDouble(figure).boxed().toList();
        List<Double> theirs = peer.stream().mapToDouble(figure).boxed().toList();
        md.append("| ").append(label).append(" | ").append(spread(mine, format)).append(" | ")
                .append(spread(theirs, format)).append(" | ")
                .append(ratio ? Fmt.spread(Spread.ratios(mine, theirs), Fmt::ratio) : "—").append(" |\n");
    }

    private static String spread(List<Double> values, Function<Double, String> format) {
        Spread spread = Spread.of(values);
        return values.size() == 1 ? format.apply(spread.median()) : Fmt.spread(spread, format::apply);
    }

    private static String lost(List<WatchdogWorkload.Cell> cells) {
        long lost = cells.stream().mapToLong(c -> c.hold().lostLocally()).max().orElse(-1);
        return lost < 0 ? "n/a (no local lease state)" : Fmt.count(lost);
    }

    private static String byThread(List<WatchdogWorkload.Cell> cells) {
        return cells.get(cells.size() - 1).cpuByThreadGroup().entrySet().stream().limit(4)
                .map(e -> e.getKey() + " " + Fmt.one(e.getValue())).collect(Collectors.joining(", "));
    }

    private static String classes(String label, WatchdogWorkload.Cell cell) {
        StringBuilder md = new StringBuilder("- ").append(label).append(": ");
        List<String> parts = new ArrayList<>();
        for (HeapProbe.Growth growth : cell.heap().classes()) {
            parts.add("`" + shortName(growth.className()) + "` " + Fmt.count(growth.bytesPerUnit()) + " B ("
                    + Fmt.two(growth.instancesPerUnit()) + ")");
        }
        return md.append(String.join(", ", parts)).append("\n").toString();
    }

    /** A class name without its package, e.g. {@code engine.ManagedLease} for Leasehold's. */
    private static String shortName(String className) {
        return className.replace("dev.leasehold.", "").replace("java.util.concurrent.", "j.u.c.")
                .replace("java.util.", "j.u.").replace("java.lang.", "").replaceAll("\\$\\$Lambda.*", "\\$\\$Lambda");
    }

    static String names(ScaleBench.Names names, ScaleBench.Settings settings) {
        FreshNamesWorkload.Settings s = settings.names();
        List<FreshNamesWorkload.Cell> cells = names.cells();
        StringBuilder md = new StringBuilder("## ").append(Fmt.count(s.names())).append(" fresh lock names\n\n");
        md.append(conditionsNote(names.foreignCpuPercent()));
        md.append(s.threads()).append(" threads of one client lock and release names never used before, as fast as ")
                .append("they go, until ").append(Fmt.count(s.names())).append(" names or ")
                .append(s.limit().toSeconds()).append(" s (after a ").append(Fmt.one(s.warmup().toMillis() / 1000.0))
                .append(" s warm-up whose keys are flushed). Watchdog leases, ttl ").append(Contender.DEFAULT_TTL.toSeconds())
                .append(" s. The server's keys are read every ").append(Fmt.one(s.sample().toMillis() / 1000.0))
                .append(" s; after the load the report waits up to ").append(settings.drain().toSeconds())
                .append(" s for the keys to expire (not for the default 10-minute retention). Heap figures are used ")
                .append("after a collection (median of 3).\n\n");
        md.append("| |");
        cells.forEach(c -> md.append(' ').append(c.peer()).append(" |"));
        md.append("\n| ---");
        cells.forEach(c -> md.append(" | ---"));
        md.append(" |\n");
        namesRow(md, "names locked and released", cells, c -> Fmt.count(c.names()));
        namesRow(md, "seconds; names per minute", cells, c -> Fmt.one(c.seconds()) + "; " + Fmt.count(c.namesPerMinute()));
        namesRow(md, "keys on the server when the load stopped (with a TTL)", cells,
                c -> Fmt.count(c.endOfLoad().keys()) + " (" + Fmt.count(c.endOfLoad().keysWithTtl()) + ")");
        namesRow(md, "most keys at once", cells,
                c -> Fmt.count(c.samples().stream().mapToLong(FreshNamesWorkload.Sample::keys).max().orElse(0)));
        namesRow(md, "key shapes when the load stopped (a sample of " + Fmt.count(FreshNamesWorkload.CENSUS_SAMPLE)
                + " keys at most)", cells, ScaleReport::shapes);
        namesRow(md, "server memory when the load stopped, above before it; per key", cells, ScaleReport::memory);
        namesRow(md, "keys left after the load", cells, ScaleReport::drain);
        namesRow(md, "client heap after GC, MB: start / middle / end (/ after the drain)", cells, c ->
                c.checkpoints().stream().map(p -> Fmt.one(p.heapBytes() / 1048576.0)).collect(Collectors.joining(" / ")));
        namesRow(md, "client heap growth per name, B (last − start)", cells, c -> Fmt.two(c.heapGrowthPerName()));
        namesRow(md, "client's own counters at the middle", cells, c -> state(c, "middle"));
        namesRow(md, "client's own counters at the end", cells, c -> state(c, "end"));
        md.append("\nKeys on the server over time (seconds since the load started: keys):\n\n");
        for (FreshNamesWorkload.Cell cell : cells) {
            md.append("- ").append(cell.peer()).append(": ").append(series(cell)).append('\n');
        }
        cells.stream().filter(c -> c.peer().equals(ScaleBench.LEASEHOLD_DEFAULT)).findFirst().ifPresent(c -> {
            double perKey = c.endOfLoad().keys() == 0 ? 0 : c.memoryAtEnd() / (double) c.endOfLoad().keys();
            double steady = c.namesPerMinute() * 10;
            md.append("\nWith the default retention, every name keeps its fence key for 10 minutes: at this rate ")
                    .append("that is a projected ").append(Fmt.count(steady)).append(" keys and about ")
                    .append(Fmt.count(steady * perKey / 1048576.0)).append(" MB of server memory in steady state ")
                    .append("(10 × the names per minute, at the bytes per key measured above; not measured).\n");
        });
        return md.toString();
    }

    private static void namesRow(StringBuilder md, String label, List<FreshNamesWorkload.Cell> cells,
                                 Function<FreshNamesWorkload.Cell, String> figure) {
        md.append("| ").append(label).append(" |");
        cells.forEach(c -> md.append(' ').append(figure.apply(c)).append(" |"));
        md.append('\n');
    }

    private static String shapes(FreshNamesWorkload.Cell cell) {
        if (cell.keysAtEnd().shapes().isEmpty()) {
            return "none";
        }
        List<String> parts = new ArrayList<>();
        cell.keysAtEnd().shapes().forEach((shape, counts) -> parts.add("`" + shape.replace("|", "\\|") + "` "
                + Fmt.count(counts.keys()) + (counts.withoutTtl() > 0 ? ", " + counts.withoutTtl() + " without TTL" : "")
                + ", TTL ≤ " + Fmt.one(counts.maxTtlMillis() / 1000.0) + " s"));
        return String.join("; ", parts);
    }

    private static String memory(FreshNamesWorkload.Cell cell) {
        long keys = cell.endOfLoad().keys();
        return Fmt.one(cell.memoryAtEnd() / 1048576.0) + " MB"
                + (keys == 0 ? "" : "; " + Fmt.count(cell.memoryAtEnd() / (double) keys) + " B");
    }

    private static String drain(FreshNamesWorkload.Cell cell) {
        if (cell.drainSeconds() >= 0) {
            return "none " + Fmt.one(cell.drainSeconds()) + " s after it";
        }
        FreshNamesWorkload.Sample last = cell.samples().get(cell.samples().size() - 1);
        if (last.seconds() <= cell.seconds() + 1e-9) {
            return "not waited for";
        }
        return Fmt.count(last.keys()) + " still there " + Fmt.one(last.seconds() - cell.seconds()) + " s after it";
    }

    private static String state(FreshNamesWorkload.Cell cell, String when) {
        return cell.checkpoints().stream().filter(p -> p.when().equals(when)).findFirst()
                .map(p -> counters(p.clientState())).orElse("—");
    }

    /** The client's counters in words, e.g. "held leases 0, pending timers 0". */
    private static String counters(Map<String, Long> counters) {
        if (counters.isEmpty()) {
            return "— (none exposed)";
        }
        return counters.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "));
    }

    private static String series(FreshNamesWorkload.Cell cell) {
        List<FreshNamesWorkload.Sample> samples = cell.samples();
        int step = Math.max(1, (int) Math.ceil(samples.size() / (double) SERIES_POINTS));
        List<String> points = new ArrayList<>();
        for (int i = 0; i < samples.size(); i += step) {
            points.add(point(samples.get(i)));
        }
        FreshNamesWorkload.Sample last = samples.get(samples.size() - 1);
        if ((samples.size() - 1) % step != 0) {
            points.add(point(last));
        }
        return String.join(", ", points);
    }

    private static String point(FreshNamesWorkload.Sample sample) {
        return Fmt.one(sample.seconds()) + " s: " + Fmt.count(sample.keys());
    }

    /** Used by {@link #merge}: every section of a report, by part (for tests). */
    static Map<ScaleBench.Part, String> sections(String report) {
        Map<ScaleBench.Part, String> sections = new EnumMap<>(ScaleBench.Part.class);
        for (ScaleBench.Part part : ScaleBench.Part.values()) {
            String body = sectionOf(report, part);
            if (body != null) {
                sections.put(part, body);
            }
        }
        return sections;
    }
}
