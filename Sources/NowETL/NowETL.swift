/// nowetl's version, printed by `nowetl --version`.
public let nowetlVersion = "0.1.0"
