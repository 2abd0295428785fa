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
}
