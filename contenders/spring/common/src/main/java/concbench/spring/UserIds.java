package concbench.spring;

/**
 * What the contract calls a user id: digits only (leading zeros allowed) with a value from 1 to
 * 2^53 - 1, the integers every JSON reader holds exactly (I-JSON). Any other /user/{id} is a path
 * no route serves: 404, as an unknown path.
 */
public final class UserIds {
    /** The path variable's pattern: 1 to 16 ASCII digits (Java's \d is [0-9]); MAX_ID has 16. */
    public static final String PATTERN = "\\d{1,16}";

    /** 2^53 - 1. */
    public static final long MAX_ID = (1L << 53) - 1;

    private UserIds() {
    }

    /** Whether an id that matched {@link #PATTERN} is a user id (leading zeros make 0 possible). */
    public static boolean isUserId(long id) {
        return id >= 1 && id <= MAX_ID;
    }
}
