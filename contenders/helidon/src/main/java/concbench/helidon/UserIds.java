package concbench.helidon;

/**
 * What the contract calls a user id (docs/contract.md, "Error answers"): ASCII digits only,
 * leading zeros allowed, value 1 to 2^53 - 1 (the integers every JSON reader holds exactly).
 * Any other /user/{id} is a path no route serves: 404.
 */
final class UserIds {
    static final long MAX = (1L << 53) - 1;

    private UserIds() {
    }

    /** The id, or -1 when the segment is not a user id. */
    static long parse(String segment) {
        if (segment.isEmpty()) {
            return -1;
        }
        long v = 0;
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
            if (v > MAX) { // checked per digit, so the long never overflows
                return -1;
            }
        }
        return v >= 1 ? v : -1;
    }
}
