package concbench.helidon;

/**
 * The aggregated user (seed 003): detail gives name, age and sex, extra gives phone and level
 * (non-ASCII on purpose: UTF-8 must survive). Written as JSON by Helidon's Jackson media support.
 */
record User(long id, String name, int age, int sex, String phone, String level) {

    static User of(long id) {
        return new User(id, "User-" + id, 25, 1, "13800138000", "VIP会员");
    }
}
