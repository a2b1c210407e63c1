package concbench.spring;

/** The aggregated user, as seed 003 assembles it (serialized by Spring's Jackson ObjectMapper). */
public record User(long id, String name, int age, int sex, String phone, String level) {

    public static User assemble(long id, UserDetail detail, UserExtraInfo extra) {
        return new User(id, detail.name(), detail.age(), detail.sex(), extra.phone(), extra.level());
    }
}
