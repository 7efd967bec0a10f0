; Go: functions, methods (under their receiver type, via @owner), types, constants.
(function_declaration name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @owner
        (generic_type type: (type_identifier) @owner)
        (pointer_type [
          (type_identifier) @owner
          (generic_type type: (type_identifier) @owner)])]))
  name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec
  name: (type_identifier) @name
  type: (_) @_type
  (#not-match? @_type "^(struct|interface)[ \t]*[{]")) @definition.type
(type_alias name: (type_identifier) @name) @definition.type
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
