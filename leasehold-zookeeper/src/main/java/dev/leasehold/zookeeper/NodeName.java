package dev.leasehold.zookeeper;

import dev.leasehold.spi.QueueEntry;
import org.apache.curator.framework.imps.ProtectedUtils;

import java.util.Optional;

/**
 * The name of one acquisition's ephemeral sequential node in a lock's directory:
 * {@code <kind>[<permits>]_<holder>~<10-digit sequence>}, behind Curator's protection prefix
 * ({@code _c_<uuid>-}), e.g. {@code _c_1b9e...-x_AbC...:1~0000000042}.
 *
 * <p>The kind letter lets every acquisition read the whole queue from one listing of names (no
 * node data to fetch): {@code x} exclusive (mutex, fair lock, write lock), {@code r} read lease,
 * {@code s} semaphore permit, with the number of permits it was asked under. The holder id makes
 * an acquisition's own node findable when the reply to its create was lost. The sequence,
 * appended by the server, orders the queue.
 *
 * @param kind     {@code x}, {@code r} or {@code s}
 * @param permits  the semaphore's number of permits, 0 for other kinds
 * @param holder   the acquisition's holder id
 * @param sequence the server's sequence number within the directory
 * @param node     the node's name as listed (last path segment)
 */
record NodeName(char kind, int permits, String holder, long sequence, String node) {

    static final char EXCLUSIVE = 'x';
    static final char READ = 'r';
    static final char PERMIT = 's';
    private static final int SEQUENCE_DIGITS = 10;

    /** This node as core's {@link dev.leasehold.spi.QueueRule} sees it. */
    QueueEntry entry() {
        return switch (kind) {
            case READ -> QueueEntry.read();
            case PERMIT -> QueueEntry.permit(permits);
            default -> QueueEntry.exclusive();
        };
    }

    /** The name of an acquisition asking for {@code entry} to create (the server appends the sequence). */
    static String prefix(QueueEntry entry, String holder) {
        char kind = switch (entry.mode()) {
            case READ -> READ;
            case PERMIT -> PERMIT;
            case EXCLUSIVE -> EXCLUSIVE;
        };
        return prefix(kind, entry.permits(), holder);
    }

    /** The name to create (the server appends the sequence). */
    static String prefix(char kind, int permits, String holder) {
        return kind + (kind == PERMIT ? Integer.toString(permits) : "") + "_" + holder + "~";
    }

    /** Parses a listed child, or empty if it is no lock node (something else in the directory). */
    static Optional<NodeName> parse(String node) {
        String name = ProtectedUtils.normalize(node);
        int tilde = name.lastIndexOf('~');
        int underscore = name.indexOf('_');
        if (name.isEmpty() || tilde < 0 || underscore < 1 || underscore > tilde
                || name.length() - tilde - 1 != SEQUENCE_DIGITS) {
            return Optional.empty();
        }
        char kind = name.charAt(0);
        try {
            long sequence = Long.parseLong(name.substring(tilde + 1));
            int permits = kind == PERMIT ? Integer.parseInt(name.substring(1, underscore)) : 0;
            if (kind != EXCLUSIVE && kind != READ && kind != PERMIT || sequence < 0
                    || kind != PERMIT && underscore != 1) {
                return Optional.empty();
            }
            return Optional.of(new NodeName(kind, permits, name.substring(underscore + 1, tilde), sequence, node));
        } catch (NumberFormatException notOurs) {
            return Optional.empty();
        }
    }
}
