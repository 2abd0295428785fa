package dev.leasehold.redis.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The one-string form of a Cluster's seeds, {@code redis-cluster://[[user]:password@]host:port[,host:port...]}
 * ({@code rediss-cluster://} for TLS), for places that take a single URI: a command-line option, an
 * environment variable, a property. It mirrors Lettuce's {@code redis-sentinel://} list syntax; the
 * credentials and query apply to every seed. Errors never echo the text, which may hold a password.
 */
public final class ClusterUri {

    private static final String PLAIN = "redis-cluster://";
    private static final String TLS = "rediss-cluster://";

    private ClusterUri() {
    }

    /** Whether {@code text} is written in this form (it may still be malformed). */
    public static boolean matches(String text) {
        return text != null && (text.startsWith(PLAIN) || text.startsWith(TLS));
    }

    /**
     * The seeds as {@code redis://} (or {@code rediss://}) URIs, each with the credentials and query.
     *
     * @throws IllegalArgumentException if the text is not in this form, names no host, has an empty
     *                                  host between commas, or has a database, path or fragment (a
     *                                  Cluster has only database 0)
     */
    public static List<String> seeds(String text) {
        if (!matches(text)) {
            throw new IllegalArgumentException("a Cluster URI starts with redis-cluster:// or rediss-cluster://");
        }
        boolean tls = text.startsWith(TLS);
        String rest = text.substring(tls ? TLS.length() : PLAIN.length());
        // As in any URI, the query starts at the first '?' and the credentials end at the last '@'
        // before it: a query may hold an '@' (a client name), a password must encode '?' anyway.
        int question = rest.indexOf('?');
        String authority = question < 0 ? rest : rest.substring(0, question);
        String query = question < 0 ? "" : rest.substring(question);
        int at = authority.lastIndexOf('@');
        String userInfo = authority.substring(0, at + 1);
        String hosts = authority.substring(at + 1);
        if (hosts.indexOf('/') >= 0 || hosts.indexOf('#') >= 0 || query.indexOf('#') >= 0) {
            throw new IllegalArgumentException("a Cluster URI takes no database, path or '#' (a Cluster has only "
                    + "database 0): use redis-cluster://[user:password@]host:port[,host:port...]");
        }
        List<String> seeds = new ArrayList<>();
        for (String host : hosts.split(",", -1)) {
            if (host.isBlank()) {
                throw new IllegalArgumentException("a Cluster URI needs host:port seeds separated by single commas, "
                        + "e.g. redis-cluster://localhost:7000,localhost:7001");
            }
            seeds.add((tls ? "rediss://" : "redis://") + userInfo + host.trim() + query);
        }
        return List.copyOf(seeds);
    }
}
