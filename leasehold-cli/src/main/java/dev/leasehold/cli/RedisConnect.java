package dev.leasehold.cli;

import dev.leasehold.redis.RedisLockClient;
import dev.leasehold.redis.RedisLocks;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * Connects the commands to Redis. A malformed URI is a usage error whose message never
 * echoes the URI (it may hold a password); an unreachable server is the library's
 * {@link dev.leasehold.LockUnavailableException}.
 */
final class RedisConnect {

    private RedisConnect() {
    }

    /**
     * @param option the option the URI came from, for the usage error
     * @throws ParameterException if the URI is malformed
     * @throws dev.leasehold.LockUnavailableException if the server cannot be reached or refuses the credentials
     */
    static RedisLockClient connect(String uri, String option, CommandLine commandLine) {
        RedisLocks.Builder builder = RedisLocks.builder();
        try {
            builder.uri(uri); // validates with messages that leave the URI out
        } catch (IllegalArgumentException e) {
            throw new ParameterException(commandLine, option + ": " + e.getMessage());
        }
        return builder.connect();
    }
}
