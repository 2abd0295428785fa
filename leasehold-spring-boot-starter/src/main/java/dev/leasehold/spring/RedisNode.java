package dev.leasehold.spring;

import java.util.ArrayList;
import java.util.List;

/**
 * One {@code host:port} entry of a Spring Boot node list ({@code spring.data.redis.sentinel.nodes},
 * {@code spring.data.redis.cluster.nodes}). The port is the text after the last colon, as in Boot,
 * so an IPv6 host may be written bare ({@code ::1:26379}) or in brackets ({@code [::1]:26379}).
 *
 * @param host the host, without brackets
 * @param port 1..65535
 */
record RedisNode(String host, int port) {

    /**
     * Parses every entry of {@code nodes}.
     *
     * @throws LeaseholdConfigurationException naming {@code property} when the list is empty or an
     *         entry has no host, no port, or a port outside 1..65535
     */
    static List<RedisNode> parseAll(String property, List<String> nodes) {
        if (nodes == null || nodes.isEmpty()) {
            throw new LeaseholdConfigurationException(property, "names no node; list them as host:port, "
                    + "e.g. 127.0.0.1:26379,127.0.0.1:26380", null);
        }
        List<RedisNode> parsed = new ArrayList<>();
        for (String node : nodes) {
            parsed.add(parse(property, node));
        }
        return List.copyOf(parsed);
    }

    private static RedisNode parse(String property, String node) {
        String text = node == null ? "" : node.trim();
        int colon = text.lastIndexOf(':');
        String host = colon < 0 ? "" : text.substring(0, colon).trim();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = -1;
        try {
            port = Integer.parseInt(text.substring(colon + 1).trim());
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        if (host.isEmpty() || port < 1 || port > 65535) {
            throw new LeaseholdConfigurationException(property, "'" + text + "' is not host:port with a port in "
                    + "1..65535, e.g. 127.0.0.1:26379", null);
        }
        return new RedisNode(host, port);
    }

    /** The host as a URI writes it: IPv6 addresses in brackets. */
    String uriHost() {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }
}
