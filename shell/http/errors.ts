/**
 * The one error shape of the API: `{"error":{"code","message"}}` with an HTTP status. Handlers throw
 * ApiError for expected refusals; anything else is a bug, logged and answered 500 without details.
 */
import { resultCode, resultMessage, Result, type ResultCode } from '../../engine/core/results.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function errorBody(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

/** HTTP status for an engine refusal: not found, conflict, or validation. */
export function statusOfResult(result: ResultCode): number {
  switch (result) {
    case Result.orderNotFound:
    case Result.unknownPair:
    case Result.twapNotFound:
      return 404;
    case Result.duplicateClientOrderId:
    case Result.postOnlyWouldTake:
    case Result.orderIdNotIncreasing:
    case Result.twapIdNotIncreasing:
    case Result.scaleIdNotIncreasing:
    case Result.scaleWouldTake:
      return 409;
    case Result.insufficientBalance:
    case Result.balanceLimit:
      return 422;
    case Result.tooManyOpenOrders:
    case Result.bookFull:
    case Result.tooManyStopOrders:
    case Result.tooManyPriceLevels:
    case Result.tooManyAccounts:
    case Result.tooManyTwaps:
    case Result.twapsFull:
      return 429;
    default:
      return 422;
  }
}

export function engineRefusal(result: ResultCode): ApiError {
  return new ApiError(statusOfResult(result), resultCode(result), resultMessage(result));
}
