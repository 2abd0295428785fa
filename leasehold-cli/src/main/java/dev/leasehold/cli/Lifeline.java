package dev.leasehold.cli;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Ties the command's process group to this JVM and to the lease's deadline, so that the command
 * dies on the lease's schedule even when leasehold gets no chance to stop it: when it dies
 * (SIGKILL, the OOM killer), as flock(1)'s child loses the lock with its file descriptor, and
 * when it is alive but cannot act (SIGSTOP, a long GC or safepoint pause, a CPU-throttled
 * container), as then neither renewals nor {@link LeaseWatch} run.
 *
 * <p>The JVM holds the only writer of a FIFO. Before the command is exec'd, a bash prologue in its
 * process group opens the FIFO for reading and leaves behind a small watcher, the lifeline:
 * a member of the same group, but orphaned on purpose (so the command does not find an unknown
 * child when it waits for its children), deaf to SIGTERM and its like (so that passing Ctrl-C on
 * does not cut it), that reads the FIFO. Two things make it act:
 * <ul>
 * <li>End-of-file. When the JVM ends, however it ends, the kernel closes the writer, the read
 *     returns end-of-file, and the lifeline SIGKILLs its whole group, itself included.
 *     {@link #close()} does the same on purpose once the command has exited: what it left behind
 *     would otherwise run on without the lock.</li>
 * <li>Time. The JVM {@linkplain #enforce(Deadlines) writes deadlines}: when to SIGTERM the group
 *     and when to SIGKILL it, unless a later line moves them. The first is written before the
 *     command starts, later ones after renewals. A lifeline that hears nothing new sends SIGTERM
 *     and then SIGKILL at those times, by itself: a JVM that stopped renewing, for whatever
 *     reason, cannot leave the command running past them. Once it has sent SIGTERM it does not
 *     send it again; a later line still moves the SIGKILL.</li>
 * </ul>
 *
 * <p>The two must agree on a clock that a paused JVM cannot distort, and bash has no monotonic
 * clock of its own, so the deadlines are absolute times on the clock of {@code /proc/uptime},
 * in hundredths of a second, which both sides read (the lifeline with the {@code read} builtin,
 * no fork). A line that arrives late, because the JVM paused between computing and writing it,
 * still names the right moment. Converting from {@link System#nanoTime()} rounds towards earlier,
 * by up to two hundredths: the lifeline may act that much early, never late.
 *
 * <p>Why not the alternatives Debian ships: {@code setpriv --pdeathsig} covers one process, not
 * its children, and fires when the spawning <em>thread</em> ends; polling the JVM's pid from a
 * shell loop costs wake-ups and must guard against pid reuse. A pipe needs neither; only bash,
 * util-linux {@code setsid} and coreutils {@code mkfifo} and {@code rm}.
 *
 * <p>What it cannot do: a process that leaves the group ({@code setsid}, a daemon's double fork)
 * is beyond its reach, as it is beyond SIGTERM's; and a lifeline that is itself stopped (a frozen
 * cgroup freezes it with the command, SIGSTOP or SIGKILL aimed at its pid) does nothing.
 *
 * <p>The lifeline also pins the group id: as long as one member lives, Linux hands the number out
 * to no one else (see {@link ProcessGroup}).
 */
final class Lifeline implements AutoCloseable {

    /** The lifeline's {@code argv[0]}, which, with the FIFO's unique path, tells it apart. */
    static final String NAME = "leasehold-lifeline";

    private static final long MKFIFO_TIMEOUT_SECONDS = 5;

    /** The clock both sides read: seconds since boot, with two decimals. */
    private static final Path UPTIME = Path.of("/proc/uptime");
    private static final long CENTISECOND_NANOS = 10_000_000L;
    /** Longer between the two nanoTime reads around an uptime read, and the sample is taken again. */
    private static final long SAMPLE_SPREAD_NANOS = 2_000_000L;
    private static final int SAMPLE_ATTEMPTS = 3;

    /**
     * When the lifeline must send SIGTERM and SIGKILL to the group, as {@link System#nanoTime()}
     * values, unless it is told later times before. A SIGKILL time earlier than the SIGTERM time
     * means SIGKILL alone.
     */
    record Deadlines(long termAtNanos, long killAtNanos) {
    }

    /**
     * The lifeline, run by {@code bash -c} with fd 4 reading the FIFO. Each line the JVM writes is
     * "TERM KILL", both times in hundredths of a second on the {@code /proc/uptime} clock. Before
     * the first line, it only waits; after it, it waits with {@code read -t} for the next line,
     * no longer than until the next thing it must do, and does it when the time has come. On
     * end-of-file, if the clock cannot be read, or on any error that ends the script, it kills
     * the group at once (the EXIT trap; a bad arithmetic expansion exits bash -c). Arithmetic on
     * uptime strings forces base 10: "0.09" would be read as octal otherwise.
     */
    private static final String WATCHER = """
            trap 'kill -KILL 0' EXIT
            term= kill= termed=
            while :; do
              if [ -n "$kill" ]; then
                read -r up _ < /proc/uptime && [[ $up =~ ^[0-9]+[.][0-9][0-9]$ ]] || break
                now=$((10#${up/./}))
                (( now < kill )) || break
                if [ -z "$termed" ] && (( now >= term )); then kill -TERM 0; termed=1; fi
                if [ -z "$termed" ]; then left=$((term - now)); else left=$((kill - now)); fi
                printf -v timeout %d.%02d $((left / 100)) $((left % 100))
                read -r -u 4 -t "$timeout" t k
                status=$?
                (( status > 128 )) && continue
                (( status == 0 )) || break
              else
                read -r -u 4 t k || break
              fi
              [[ $t =~ ^[0-9]{1,15}$ && $k =~ ^[0-9]{1,15}$ ]] && term=$((10#$t)) kill=$((10#$k))
            done
            """;

    /**
     * The command's prologue, run by {@code bash -c} in the new session; {@code $1} is the
     * lifeline's script, {@code $2} the FIFO, the rest is the command. Opening fd 3 read-write
     * never blocks, and with it open, neither does opening fd 4 read-only; once fd 3 is closed,
     * the JVM holds the only writer. If the JVM is already gone, the read ends at once and the
     * group dies before the command is exec'd. A command that is missing or not executable is
     * named in a message of its own: bash's would point at a line of this prologue.
     */
    private static final String PROLOGUE = """
            watcher=$1 fifo=$2; shift 2
            exec 3<>"$fifo" 4<"$fifo" 3<&- || { echo "leasehold: cannot open $fifo" >&2; exit 126; }
            rm -f -- "$fifo"
            ( trap '' HUP INT QUIT TERM USR1 USR2 PIPE ALRM
              exec </dev/null >/dev/null 2>&1
              exec -a %s "$BASH" -c "$watcher" %s "$fifo" & )
            exec 4<&-
            command -v -- "$1" >/dev/null 2>&1 || {
              if [[ $1 == */* && -e $1 ]]; then
                echo "leasehold: cannot execute $1: not an executable file" >&2; exit 126
              fi
              echo "leasehold: $1: command not found" >&2; exit 127; }
            exec "$@"
            """.formatted(NAME, NAME);

    private final Path fifo;
    /**
     * Not a FileChannel: an interrupt of a thread writing to one closes the channel, and closing
     * it kills the command.
     */
    private final RandomAccessFile writer;

    private Lifeline(Path fifo, RandomAccessFile writer) {
        this.fifo = fifo;
        this.writer = writer;
    }

    /**
     * Makes the FIFO and opens its writer.
     *
     * @throws CliException with {@link ExitCodes#CANNOT_EXECUTE} if the FIFO cannot be made
     */
    static Lifeline create() {
        uptimeCentis(); // fail before making anything if the clock cannot be read
        Path fifo = Path.of(System.getProperty("java.io.tmpdir"), "leasehold-" + UUID.randomUUID() + ".fifo");
        try {
            // mkfifo fails rather than follow or reuse an existing name; mode 600 keeps others out.
            Process mkfifo = new ProcessBuilder("mkfifo", "-m", "600", "--", fifo.toString())
                    .redirectOutput(Redirect.DISCARD)
                    .redirectError(Redirect.INHERIT)
                    .start();
            if (!mkfifo.waitFor(MKFIFO_TIMEOUT_SECONDS, TimeUnit.SECONDS) || mkfifo.exitValue() != 0) {
                mkfifo.destroyForcibly();
                throw new CliException(ExitCodes.CANNOT_EXECUTE, "cannot make the FIFO " + fifo
                        + " that ties the command to leasehold");
            }
            // Read-write: opening a FIFO so does not wait for a reader.
            return new Lifeline(fifo, new RandomAccessFile(fifo.toFile(), "rw"));
        } catch (IOException e) {
            throw new CliException(ExitCodes.CANNOT_EXECUTE, "cannot make the FIFO that ties the command to "
                    + "leasehold (mkfifo, coreutils): " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(ExitCodes.CANNOT_EXECUTE, "interrupted while making " + fifo);
        }
    }

    /** The argv that runs {@code command} in a session of its own, tied to this lifeline. */
    List<String> wrap(List<String> command) {
        // $0 is "leasehold", so that bash's own errors (command not found) read as ours.
        List<String> argv = new ArrayList<>(List.of("setsid", "--", "bash", "-c", PROLOGUE, "leasehold",
                WATCHER, fifo.toString()));
        argv.addAll(command);
        return argv;
    }

    /** Whether {@code argv} (a process's command line) is this lifeline's. */
    boolean isLifeline(List<String> argv) {
        return !argv.isEmpty() && argv.get(0).equals(NAME) && argv.get(argv.size() - 1).equals(fifo.toString());
    }

    /**
     * Tells the lifeline when to stop the group if it hears nothing later. Written before the
     * command starts, the line waits in the FIFO for the lifeline. A pipe write this short is
     * atomic, so the lifeline never reads half a line. Does nothing once closed.
     *
     * @throws CliException with {@link ExitCodes#CANNOT_EXECUTE} if {@code /proc/uptime} cannot be read
     */
    synchronized void enforce(Deadlines deadlines) {
        UptimeSample sample = UptimeSample.take();
        long killAt = toUptimeCentis(deadlines.killAtNanos(), sample);
        long termAt = Math.min(killAt, toUptimeCentis(deadlines.termAtNanos(), sample));
        try {
            writer.write((termAt + " " + killAt + "\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException closed) {
            // close() came first: the lifeline has killed the group, or is doing so
        }
    }

    /**
     * {@code nanos} on the uptime clock, in hundredths, rounded so that it falls no later than
     * {@code nanos}, counting the lifeline's own rounding: the uptime was read at some instant
     * between the two nanoTime reads around it, and shows at most one hundredth less than it was.
     * Taking the later nanoTime read puts the conversion on the early side; so does a pause
     * between them. The lifeline, reading a clock that also lags by up to one hundredth, may act
     * that much late: one more hundredth off makes up for it.
     */
    private static long toUptimeCentis(long nanos, UptimeSample sample) {
        return sample.centis() + Math.floorDiv(nanos - sample.nanoTimeAfter(), CENTISECOND_NANOS) - 1;
    }

    /** The uptime in hundredths, and {@link System#nanoTime()} just after it was read. */
    private record UptimeSample(long centis, long nanoTimeAfter) {

        /** Reads the two close together if it can; a wider spread only moves conversions earlier. */
        static UptimeSample take() {
            for (int attempt = 1; ; attempt++) {
                long before = System.nanoTime();
                long centis = uptimeCentis();
                long after = System.nanoTime();
                if (after - before <= SAMPLE_SPREAD_NANOS || attempt == SAMPLE_ATTEMPTS) {
                    return new UptimeSample(centis, after);
                }
            }
        }
    }

    /** The first field of {@code /proc/uptime}, "SECONDS.HH", in hundredths of a second. */
    static long uptimeCentis() {
        try {
            String seconds = Files.readString(UPTIME, StandardCharsets.US_ASCII).split(" ", 2)[0];
            int dot = seconds.indexOf('.');
            return Long.parseLong(seconds.substring(0, dot)) * 100 + Long.parseLong(seconds.substring(dot + 1));
        } catch (IOException | RuntimeException e) {
            throw new CliException(ExitCodes.CANNOT_EXECUTE, "cannot read the clock " + UPTIME
                    + " that the command's lifeline keeps time by: " + e.getMessage());
        }
    }

    /** Closes the writer: the lifeline kills whatever is left of the group. */
    @Override
    public void close() {
        try {
            writer.close();
        } catch (IOException e) {
            // Nothing to do about it: the JVM's exit closes it in any case.
        }
        try {
            Files.deleteIfExists(fifo); // still there only if the prologue never ran
        } catch (IOException e) {
            // An empty FIFO left in the temporary directory harms no one.
        }
    }
}
