package dev.leasehold.cli;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Ties the command's process group to this JVM, so that the command dies with leasehold even
 * when leasehold gets no chance to stop it (SIGKILL, the OOM killer), as flock(1)'s child loses
 * the lock with its file descriptor.
 *
 * <p>The JVM holds the only writer of a FIFO. Before the command is exec'd, a bash prologue in its
 * process group opens the FIFO for reading and leaves behind a small watcher, the lifeline:
 * a member of the same group, but orphaned on purpose (so the command does not find an unknown
 * child when it waits for its children), deaf to SIGTERM and its like (so that passing Ctrl-C on
 * does not cut it), that blocks reading the FIFO. When the JVM ends, however it ends, the kernel
 * closes the writer, the read returns end-of-file, and the lifeline SIGKILLs its whole group,
 * itself included. {@link #close()} does the same on purpose once the command has exited: what
 * it left behind would otherwise run on without the lock.
 *
 * <p>Why not the alternatives Debian ships: {@code setpriv --pdeathsig} covers one process, not
 * its children, and fires when the spawning <em>thread</em> ends; polling the JVM's pid from a
 * shell loop costs wake-ups and must guard against pid reuse. A pipe needs neither; only bash,
 * util-linux {@code setsid} and coreutils {@code mkfifo} and {@code rm}.
 *
 * <p>The lifeline also pins the group id: as long as one member lives, Linux hands the number out
 * to no one else (see {@link ProcessGroup}).
 */
final class Lifeline implements AutoCloseable {

    /** The lifeline's {@code argv[0]}, which, with the FIFO's unique path, tells it apart. */
    static final String NAME = "leasehold-lifeline";

    private static final long MKFIFO_TIMEOUT_SECONDS = 5;

    /**
     * The command's prologue, run by {@code bash -c} in the new session; {@code $1} is the FIFO,
     * the rest is the command. Opening fd 3 read-write never blocks, and with it open, neither
     * does opening fd 4 read-only; once fd 3 is closed, the JVM holds the only writer. If the JVM
     * is already gone, the read ends at once and the group dies before the command is exec'd.
     */
    private static final String PROLOGUE = """
            fifo=$1; shift
            exec 3<>"$fifo" 4<"$fifo" 3<&- || { echo "leasehold: cannot open $fifo" >&2; exit 126; }
            rm -f -- "$fifo"
            ( trap '' HUP INT QUIT TERM USR1 USR2 PIPE ALRM
              exec </dev/null >/dev/null 2>&1
              exec -a %s "$BASH" -c 'while read -r -u 4 _; do :; done; kill -KILL 0' %s "$fifo" & )
            exec 4<&-
            exec "$@"
            """.formatted(NAME, NAME);

    private final Path fifo;
    private final FileChannel writer;

    private Lifeline(Path fifo, FileChannel writer) {
        this.fifo = fifo;
        this.writer = writer;
    }

    /**
     * Makes the FIFO and opens its writer.
     *
     * @throws CliException with {@link ExitCodes#CANNOT_EXECUTE} if the FIFO cannot be made
     */
    static Lifeline create() {
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
            return new Lifeline(fifo, FileChannel.open(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
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
                fifo.toString()));
        argv.addAll(command);
        return argv;
    }

    /** Whether {@code argv} (a process's command line) is this lifeline's. */
    boolean isLifeline(List<String> argv) {
        return !argv.isEmpty() && argv.get(0).equals(NAME) && argv.get(argv.size() - 1).equals(fifo.toString());
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
