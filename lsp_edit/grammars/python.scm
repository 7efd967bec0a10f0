; Python: classes, functions (methods when directly inside a class), module constants.
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
((module
   (expression_statement
     (assignment left: (identifier) @name)) @definition.constant)
 (#match? @name "^[A-Z][A-Z0-9_]*$"))
