// The list lives in contract/ (shared with the widget, no runtime dependencies).
export { FAILURE_CODES, type FailureCode } from '../../contract/failure-codes';
