package dev.leasehold.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RedactionTest {

    @Test
    void removesUserAndPasswordFromRedisUris() {
        assertThat(Redaction.credentialsRemoved("cannot reach redis://admin:s3cret@db.example:6379/2 now"))
                .isEqualTo("cannot reach redis://db.example:6379/2 now");
        assertThat(Redaction.credentialsRemoved("REDISS://:pw@host")).isEqualTo("REDISS://host");
        assertThat(Redaction.credentialsRemoved("redis://host:6379, no credentials")).isEqualTo("redis://host:6379, no credentials");
    }

    @Test
    void removesThemFromSentinelAndClusterUrisToo() {
        assertThat(Redaction.credentialsRemoved("at redis-sentinel://s3cret@h:26379#m")).isEqualTo("at redis-sentinel://h:26379#m");
        assertThat(Redaction.credentialsRemoved("at rediss-cluster://u:s3cret@h:7000,h:7001"))
                .isEqualTo("at rediss-cluster://h:7000,h:7001");
    }

    /** A usage template is no URI with credentials: it reached users as 'redis://]host:port[/db]'. */
    @Test
    void leavesTheUsageTemplatesAlone() {
        String template = "use redis://[user:password@]host:port[/db] or redis-sentinel://[password@]host:port#master";
        assertThat(Redaction.credentialsRemoved(template)).isEqualTo(template);
    }
}
