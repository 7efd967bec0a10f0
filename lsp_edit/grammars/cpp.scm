; C++: namespaces, classes, structs, enums, function definitions (not declarations).
; A qualified name (`void net::Client::chat()`) gives the path parts itself.
(namespace_definition name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace
(class_specifier name: [(type_identifier) (qualified_identifier) (template_type)] @name body: (field_declaration_list)) @definition.class
(struct_specifier name: [(type_identifier) (qualified_identifier) (template_type)] @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(function_definition
  declarator: [
    (function_declarator declarator: (_) @name)
    (pointer_declarator declarator: (function_declarator declarator: (_) @name))
    (reference_declarator (function_declarator declarator: (_) @name))]) @definition.function
