// The AST produced by formulas/formula.peggy. Plain data: the grammar's actions build it,
// formulas/compile.ts turns it into closures once, nothing walks it per value.

/** A place in the formula text: `offset` counts UTF-16 units from 0, `line` and `column` from 1. */
export interface Position {
  readonly offset: number
  readonly line: number
  readonly column: number
}

export type ArithOp = '+' | '-' | '*' | 'x' | '/' | '%'
/** `=` is parsed as a comparison only to report "use ==" (formulas/compile.ts). */
export type CompareOp = '<' | '>' | '<=' | '>=' | '==' | '!=' | '='

export interface NumNode { type: 'num'; value: number; text: string; pos: Position }
export interface NameNode { type: 'name'; name: string; pos: Position }
export interface NegNode { type: 'neg'; count: number; arg: ExprNode; pos: Position }
/** `first op1 r1 op2 r2 ...`, left-associative, all operators of one precedence level. */
export interface ArithNode { type: 'arith'; first: ExprNode; rest: { op: ArithOp; right: ExprNode }[]; pos: Position }
/** Comparisons do not chain; `rest` has more than one element only in an invalid formula. */
export interface CompareNode {
  type: 'compare'; first: ExprNode; rest: { op: CompareOp; pos: Position; right: ExprNode }[]; pos: Position
}
export interface LogicNode { type: 'and' | 'or'; args: ExprNode[]; pos: Position }
export interface CallNode { type: 'call'; name: string; args: ExprNode[]; pos: Position }

export type ExprNode = NumNode | NameNode | NegNode | ArithNode | CompareNode | LogicNode | CallNode

export interface AssignEquation { type: 'assign'; target: NameNode; expr: ExprNode; pos: Position }
export interface ExprEquation { type: 'expr'; expr: ExprNode; pos: Position }
export type Equation = AssignEquation | ExprEquation

/** A formula: its equations in source order (at least one). */
export type Program = Equation[]
