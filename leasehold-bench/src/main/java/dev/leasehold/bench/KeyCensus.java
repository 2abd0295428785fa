package dev.leasehold.bench;

import dev.leasehold.launcher.RedisServer;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a library leaves in Redis: every key, grouped by shape (the lock name replaced by
 * {@code NAME}, random ids by {@code ID}), with how many have no TTL and the longest TTL left.
 * Taken in one script, so the server cannot change in between.
 *
 * @param shapes key shape to its counts, in the order first seen
 */
record KeyCensus(Map<String, Shape> shapes) {

    /** One shape of key. {@code maxTtlMillis} is -1 when none of them has a TTL. */
    record Shape(long keys, long withoutTtl, long maxTtlMillis) {

        Shape plus(Shape other) {
            return new Shape(keys + other.keys, withoutTtl + other.withoutTtl,
                    Math.max(maxTtlMillis, other.maxTtlMillis));
        }
    }

    static final KeyCensus EMPTY = new KeyCensus(Map.of());

    private static final String SCRIPT = BenchLua.text("key_census.lua");

    /** The keys on {@code server} right now. */
    @SuppressWarnings("unchecked")
    static KeyCensus take(RedisServer server) {
        Map<String, Shape> shapes = new LinkedHashMap<>();
        for (Object entry : (List<Object>) server.command("EVAL", SCRIPT, "0")) {
            List<Object> fields = (List<Object>) entry;
            shapes.put((String) fields.get(0),
                    new Shape((Long) fields.get(1), (Long) fields.get(2), (Long) fields.get(3)));
        }
        return new KeyCensus(shapes);
    }

    /**
     * The shapes of a sample of at most {@code limit} keys, read by {@code SCAN} and one {@code PTTL}
     * each, so a server with a million keys is never blocked by one long script (which {@link #take}
     * would be). The counts are the sample's, not the server's.
     */
    @SuppressWarnings("unchecked")
    static KeyCensus sample(RedisServer server, int limit) {
        Map<String, Shape> shapes = new LinkedHashMap<>();
        String cursor = "0";
        int seen = 0;
        do {
            List<Object> reply = (List<Object>) server.command("SCAN", cursor, "COUNT", "500");
            cursor = (String) reply.get(0);
            for (Object key : (List<Object>) reply.get(1)) {
                if (seen++ == limit) {
                    return new KeyCensus(shapes);
                }
                long ttl = (Long) server.command("PTTL", (String) key);
                shapes.merge(shape((String) key), new Shape(1, ttl == -1 ? 1 : 0, ttl == -1 ? -1 : ttl), Shape::plus);
            }
        } while (!cursor.equals("0"));
        return new KeyCensus(shapes);
    }

    /** The script's shape of one key, in Java: the lock name as {@code NAME}, random ids as {@code ID}. */
    private static String shape(String key) {
        return key.replaceAll("lock-\\d+", "NAME").replaceAll("[0-9a-fA-F]{8}[0-9a-fA-F-]*", "ID");
    }

    /** Both censuses added up, shape by shape. */
    KeyCensus plus(KeyCensus other) {
        Map<String, Shape> sum = new LinkedHashMap<>(shapes);
        other.shapes.forEach((shape, counts) -> sum.merge(shape, counts, Shape::plus));
        return new KeyCensus(sum);
    }

    /** Keys of the shape {@code NAME}: the lock keys themselves. */
    long lockKeys() {
        Shape locks = shapes.get("NAME");
        return locks == null ? 0 : locks.keys();
    }

    long keys() {
        return shapes.values().stream().mapToLong(Shape::keys).sum();
    }
}
