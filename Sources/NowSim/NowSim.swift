/// nowsim's version, printed by `nowsim --version`.
public let nowsimVersion = "0.1.0"
