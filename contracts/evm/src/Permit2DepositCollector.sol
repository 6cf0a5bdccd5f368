// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {IDepositCollector} from "./IDepositCollector.sol";
import {Permit2Lite} from "./Permit2Lite.sol";

/// @title Channel deposits of any ERC-20 through Permit2, for the embedded chains.
/// @notice The payer signs a Permit2 `PermitWitnessTransferFrom` whose spender is this collector
/// and whose witness names the channel; the tokens move straight from the payer to
/// x402BatchSettlement, the only caller allowed. `data` is
/// `abi.encode(nonce, deadline, permit2Signature, eip2612PermitData)`; a non-empty last part is
/// `abi.encode(value, deadline, v, r, s)` of an EIP-2612 permit giving Permit2 its allowance in
/// the same transaction (a permit that fails, e.g. front-run, is logged and the transfer tried).
/// @dev Placed with `anvil_setCode`: Permit2 and the settlement contract are constants.
contract Permit2DepositCollector is IDepositCollector {
    address public constant x402BatchSettlement = 0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003;
    Permit2Lite public constant PERMIT2 = Permit2Lite(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    /// @dev Permit2 appends this to its witness stub; struct types follow in name order.
    string public constant DEPOSIT_WITNESS_TYPE_STRING =
        "DepositWitness witness)DepositWitness(bytes32 channelId)TokenPermissions(address token,uint256 amount)";
    bytes32 public constant DEPOSIT_WITNESS_TYPEHASH = keccak256("DepositWitness(bytes32 channelId)");

    event EIP2612PermitFailedWithReason(address indexed token, address indexed owner, string reason);
    event EIP2612PermitFailedWithPanic(address indexed token, address indexed owner, uint256 errorCode);
    event EIP2612PermitFailedWithData(address indexed token, address indexed owner, bytes data);

    error OnlyX402BatchSettlement();
    error Permit2612AmountMismatch();

    function collect(address payer, address token, uint256 amount, bytes32 channelId, bytes calldata data) external {
        if (msg.sender != x402BatchSettlement) revert OnlyX402BatchSettlement();
        (uint256 nonce, uint256 deadline, bytes memory signature, bytes memory permit2612) =
            abi.decode(data, (uint256, uint256, bytes, bytes));
        if (permit2612.length != 0) _permitPermit2(payer, token, amount, permit2612);
        PERMIT2.permitWitnessTransferFrom(
            Permit2Lite.PermitTransferFrom(Permit2Lite.TokenPermissions(token, amount), nonce, deadline),
            Permit2Lite.SignatureTransferDetails(x402BatchSettlement, amount),
            payer,
            keccak256(abi.encode(DEPOSIT_WITNESS_TYPEHASH, channelId)),
            DEPOSIT_WITNESS_TYPE_STRING,
            signature
        );
    }

    function _permitPermit2(address payer, address token, uint256 amount, bytes memory permit2612) private {
        (uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) =
            abi.decode(permit2612, (uint256, uint256, uint8, bytes32, bytes32));
        if (value != amount) revert Permit2612AmountMismatch();
        try IERC20Permit(token).permit(payer, address(PERMIT2), value, deadline, v, r, s) {}
        catch Error(string memory reason) {
            emit EIP2612PermitFailedWithReason(token, payer, reason);
        } catch Panic(uint256 code) {
            emit EIP2612PermitFailedWithPanic(token, payer, code);
        } catch (bytes memory raw) {
            emit EIP2612PermitFailedWithData(token, payer, raw);
        }
    }
}
