package concbench.spring;

/** What the detail call returns (seed 003: name, age, sex). */
public record UserDetail(String name, int age, int sex) {

    public static UserDetail of(long userId) {
        return new UserDetail("User-" + userId, 25, 1);
    }
}
