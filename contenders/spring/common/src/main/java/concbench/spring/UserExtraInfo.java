package concbench.spring;

/** What the extra call returns (seed 003: phone, level; level is non-ASCII on purpose). */
public record UserExtraInfo(String phone, String level) {

    public static UserExtraInfo of(long userId) {
        return new UserExtraInfo("13800138000", "VIP会员");
    }
}
