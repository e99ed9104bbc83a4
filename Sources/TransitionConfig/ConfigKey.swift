// Typed key declarations: each key of a config (or expectation) file is
// declared once, as a `ConfigKey` in the tables of ConfigSchema.swift and
// ExpectationSchema.swift. The validator checks the declarations' specs, the
// builder reads values through them (`section[TransitionKeys.edgeMargin]` is
// a `Double`) and the renderer writes through them, so no key name is
// spelled anywhere else.

// MARK: - Codecs

/// How one Swift type is written in a config: the `ValueKind` that validates
/// it, and the conversions between it and its validated `ConfigValue`.
struct ValueCodec<Value>: Sendable {
    var kind: ValueKind
    /// The Swift value of a validated value; nil when the kind does not
    /// guarantee one (a bug in the declaration, not in the file).
    var decode: @Sendable (ConfigValue) -> Value?
    var encode: @Sendable (Value) -> ConfigValue

    /// The same kind read as another type: `uid` is an integer read as a `UInt32`.
    func map<Other>(_ decode: @escaping @Sendable (Value) -> Other?,
                    _ encode: @escaping @Sendable (Other) -> Value) -> ValueCodec<Other> {
        let decodeValue = self.decode
        let encodeValue = self.encode
        return ValueCodec<Other>(kind: kind,
                                 decode: { decodeValue($0).flatMap(decode) },
                                 encode: { encodeValue(encode($0)) })
    }

    /// An array (possibly empty) of items of this codec.
    var array: ValueCodec<[Value]> {
        let decodeItem = decode
        let encodeItem = encode
        return ValueCodec<[Value]>(
            kind: .array(of: kind),
            decode: { value in
                guard case .array(let items) = value else { return nil }
                var decoded: [Value] = []
                for item in items {
                    guard let value = decodeItem(item) else { return nil }
                    decoded.append(value)
                }
                return decoded
            },
            encode: { .array($0.map(encodeItem)) }
        )
    }
}

extension ValueCodec where Value == Double {
    /// A finite number in `range` (integers are accepted).
    static func number(_ range: NumberRange) -> Self {
        Self(kind: .number(range), decode: { if case .number(let number) = $0 { number } else { nil } },
             encode: { .number($0) })
    }
}

extension ValueCodec where Value == Int {
    static func integer(_ range: ClosedRange<Int>) -> Self {
        Self(kind: .integer(range), decode: { if case .integer(let number) = $0 { number } else { nil } },
             encode: { .integer($0) })
    }
}

extension ValueCodec where Value == Bool {
    static var boolean: Self {
        Self(kind: .boolean, decode: { if case .boolean(let flag) = $0 { flag } else { nil } },
             encode: { .boolean($0) })
    }
}

extension ValueCodec where Value == String {
    static func string(_ rule: StringRule) -> Self {
        Self(kind: .string(rule), decode: text(of:), encode: { .string($0) })
    }

    /// The text of a string value.
    static func text(of value: ConfigValue) -> String? {
        if case .string(let text) = value { text } else { nil }
    }
}

extension ValueCodec where Value: RawRepresentable & Sendable, Value.RawValue == String {
    /// One of `cases`, written as its raw value.
    static func choice(of cases: [Value]) -> Self {
        Self(kind: .choice(cases.map(\.rawValue)),
             decode: { ValueCodec<String>.text(of: $0).flatMap(Value.init(rawValue:)) },
             encode: { .string($0.rawValue) })
    }
}

extension ValueCodec where Value: RawRepresentable & CaseIterable & Sendable, Value.RawValue == String {
    /// Any case of the enum, in its declaration order.
    static func choice() -> Self { choice(of: Array(Value.allCases)) }
}

// MARK: - Keys

/// A key's default, as the Swift value its declaration reads as: what
/// `DefaultValue` says, typed.
enum KeyDefault<Value> {
    /// The file must give it (when it applies).
    case required
    case value(Value)
    /// Computed from the keys before it; the text says how, for messages.
    case computed(String, @Sendable (ValidatedSection) -> Value)
}

/// What a section's key list needs of a declaration, whatever type it
/// reads as: its spec, in the order the section checks and renders keys.
protocol DeclaredKey: Sendable {
    var spec: KeySpec { get }
}

/// A config key declared once: its name, what it takes, its default and its
/// doc line (`spec`, for the validator), and how its validated value reads as
/// `Value` (for the builder, `section[key]`) and is written back (for the
/// renderer, `key.entry(value)`). A key of an optional type has no default:
/// it reads as nil when the file does not give it, and nil is not written.
/// A name that means different things under different conditions (a swipe's
/// `direction` or a pinch's) is one declaration per condition, the later
/// ones taking the first one's `name`.
struct ConfigKey<Value>: DeclaredKey {
    let spec: KeySpec
    /// The value as `Value`; nil when the schema does not guarantee one.
    private let read: @Sendable (ConfigValue?) -> Value?
    /// The value as written; nil leaves the key out.
    private let write: @Sendable (Value) -> ConfigValue?

    var name: String { spec.name }

    /// A key that always has a value where it applies: given, defaulted,
    /// computed, or required.
    init(_ name: String, _ codec: ValueCodec<Value>, when condition: Condition = .always,
         default defaultValue: KeyDefault<Value>, note: String? = nil, summary: String? = nil) {
        let encode = codec.encode
        let specDefault: DefaultValue
        switch defaultValue {
        case .required: specDefault = .required
        case .value(let value): specDefault = .value(encode(value))
        case .computed(let how, let compute): specDefault = .computed(how) { encode(compute($0)) }
        }
        spec = KeySpec(name, codec.kind, when: condition, default: specDefault, note: note, summary: summary)
        let decode = codec.decode
        read = { $0.flatMap(decode) }
        write = { encode($0) }
    }

    /// An optional key without a default (`socket`): nil when the file does
    /// not give it.
    init<Wrapped>(_ name: String, _ codec: ValueCodec<Wrapped>, when condition: Condition = .always,
                  summary: String? = nil) where Value == Wrapped? {
        spec = KeySpec(name, codec.kind, when: condition, default: .absent, summary: summary)
        let decode = codec.decode
        let encode = codec.encode
        read = { value in
            guard let value else { return .some(nil) }
            return decode(value).map(Optional.some)
        }
        write = { $0.map(encode) }
    }

    /// The value of this key in a section's validated values; nil when the
    /// schema does not guarantee it (see `ValidatedSection`'s subscript).
    func value(in values: [String: ConfigValue]) -> Value? { read(values[name]) }

    /// This key with `value`, as the renderer writes it; nil when the value
    /// is not written (an absent optional).
    func entry(_ value: Value) -> ConfigEntry? {
        write(value).map { ConfigEntry(spec: spec, value: $0) }
    }
}

extension ConfigKey where Value: RawRepresentable, Value.RawValue == String {
    /// "Applies when this key is one of `values`": the condition of a key
    /// that only some gestures (or curves) have.
    func isOneOf(_ values: Value...) -> Condition {
        .when(name, isOneOf: values.map(\.rawValue))
    }
}

/// A key and its value, as one `key = value` line of a rendered file.
struct ConfigEntry {
    /// The declaration's spec: the name, and what the key may be (the comment).
    let spec: KeySpec
    let value: ConfigValue

    /// `key = value`.
    var line: String { TOMLKey.display(spec.name) + " = " + value.rendered }
}

// MARK: - Tables

extension ChildSection.Shape {
    /// How a table of this shape at `path` is written: `[server]`, `[[transition.keyframe]]`.
    func header(_ path: String) -> String {
        switch self {
        case .table: return "[\(path)]"
        case .arrayOfTables: return "[[\(path)]]"
        }
    }
}

extension ChildSection {
    /// A sub-table declared once: its name, its shape and its keys, in order;
    /// `parent` is the path of the table it is nested in, if any (`transition`
    /// for `[[transition.keyframe]]`). Its header, for messages and the
    /// renderer, is derived from the two.
    init(_ name: String, _ shape: Shape, under parent: String? = nil, keys: [any DeclaredKey],
         children: [ChildSection] = []) {
        let path = parent.map { $0 + "." + name } ?? name
        self.init(name: name, shape: shape,
                  schema: SectionSchema(header: shape.header(path), keys: keys.map(\.spec), children: children))
    }
}
