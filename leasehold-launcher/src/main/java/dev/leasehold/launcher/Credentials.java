package dev.leasehold.launcher;

/**
 * What {@link RedisServer#command} authenticates with.
 *
 * @param user the ACL user, or {@code null} for the default user ({@code requirepass})
 * @param password the password
 */
record Credentials(String user, String password) {

    String[] authCommand() {
        return user == null ? new String[] {"AUTH", password} : new String[] {"AUTH", user, password};
    }
}
