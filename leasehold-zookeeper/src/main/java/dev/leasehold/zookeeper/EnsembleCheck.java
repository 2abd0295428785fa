package dev.leasehold.zookeeper;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * Reads the ensemble's {@code tickTime} and {@code syncLimit} with the {@code conf} four-letter word,
 * where a server allows it ({@code 4lw.commands.whitelist=conf,...}; not allowed by default), and
 * checks them against the negotiated session timeout {@code T}:
 * <ul>
 *   <li>the tickTime shortens the relay gap of {@link SessionGrant} (longer local leases); without
 *   it, {@link SessionGrant} assumes {@code T >= 3 × tickTime}, said once at INFO;</li>
 *   <li>{@code T < 3 × tickTime} with the tickTime known is fine for safety (the gap is the tick);</li>
 *   <li>{@code syncLimit × tickTime >= T} is a WARN: a follower that loses its leader keeps its
 *   clients connected that long before dropping them, so a holder behind a partitioned follower
 *   cannot move to a healthy server before its session expires (its leases are lost, safely, but
 *   every such partition costs them). Keep {@code syncLimit × tickTime} well below the session
 *   timeout.</li>
 * </ul>
 * Best effort: each server gets one second to answer; no answer is no error.
 */
final class EnsembleCheck {

    private static final Logger LOG = LoggerFactory.getLogger(EnsembleCheck.class);
    private static final int TIMEOUT_MILLIS = 1_000;

    /** What {@code conf} said; syncLimit 0 for a standalone server. */
    record Settings(Duration tickTime, int syncLimit) {
    }

    private EnsembleCheck() {
    }

    /** Checks the ensemble at {@code connectString} and tells {@code grant} its tickTime, if readable. */
    static void check(String connectString, Duration sessionTimeout, SessionGrant grant) {
        Optional<Settings> settings = read(connectString);
        if (settings.isEmpty()) {
            LOG.info("No server of {} answered the 'conf' four-letter word (add it to 4lw.commands.whitelist to"
                    + " have it checked): leases assume the session timeout ({} ms) is at least 3 × tickTime",
                    connectString, sessionTimeout.toMillis());
            return;
        }
        Duration tick = settings.get().tickTime();
        grant.tickTime(tick);
        Duration stale = tick.multipliedBy(settings.get().syncLimit());
        if (stale.compareTo(sessionTimeout) >= 0) {
            LOG.warn("ZooKeeper {}: syncLimit × tickTime ({} ms) is not below the session timeout ({} ms): a client"
                    + " of a follower cut off from its leader keeps talking to it until its session expires, so"
                    + " its leases are lost at every such partition; lower syncLimit or raise the session timeout",
                    connectString, stale.toMillis(), sessionTimeout.toMillis());
        }
    }

    /** {@code conf} of the first server of {@code connectString} that answers it. */
    static Optional<Settings> read(String connectString) {
        int slash = connectString.indexOf('/');
        String hosts = slash < 0 ? connectString : connectString.substring(0, slash);
        for (String host : hosts.split(",")) {
            int colon = host.lastIndexOf(':');
            if (colon < 0) {
                continue;
            }
            try {
                Optional<Settings> settings = parse(conf(host.substring(0, colon).strip(),
                        Integer.parseInt(host.substring(colon + 1).strip())));
                if (settings.isPresent()) {
                    return settings;
                }
            } catch (NumberFormatException | IOException notThisOne) {
                // Try the next server.
            }
        }
        return Optional.empty();
    }

    private static String conf(String host, int port) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            out.write("conf".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readNBytes(64 * 1024), StandardCharsets.UTF_8);
        }
    }

    /** The tickTime and syncLimit lines of a {@code conf} answer; empty if it has none (not whitelisted). */
    static Optional<Settings> parse(String conf) {
        Long tick = null;
        Integer syncLimit = null;
        for (String line : conf.split("\n")) {
            String[] pair = line.strip().split("=", 2);
            try {
                if (pair.length == 2 && pair[0].equals("tickTime")) {
                    tick = Long.parseLong(pair[1].strip());
                } else if (pair.length == 2 && pair[0].equals("syncLimit")) {
                    syncLimit = Integer.parseInt(pair[1].strip());
                }
            } catch (NumberFormatException malformed) {
                return Optional.empty();
            }
        }
        // A standalone server has no syncLimit: only the tickTime matters then.
        return tick == null || tick <= 0 ? Optional.empty()
                : Optional.of(new Settings(Duration.ofMillis(tick), syncLimit == null ? 0 : syncLimit));
    }
}
